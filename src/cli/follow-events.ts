import { createParser } from 'eventsource-parser';
import type { HldpEvent } from '../events/index.js';
import { blockIds } from './sse-block-ids.js';

/** What `followEvents` needs: where, as whom, which events, and what to do with them. */
export interface FollowOptions {
  url: string;
  token?: string;
  types: string[];
  /** resume after this id */
  after?: number;
  /** stop after this many events */
  count: number;
  onEvent: (event: HldpEvent) => void;
  onNotice: (text: string) => void;
}

const MAX_BACKOFF_MS = 10_000;

/**
 * Reads the gateway's SSE stream until `count` events arrived (or forever), reconnecting with `Last-Event-ID` and a
 * growing pause when the connection drops. Resolves to the exit status: 0, or 2 when the gateway refuses the request.
 */
export async function followEvents(options: FollowOptions): Promise<number> {
  let last = options.after;
  let received = 0;
  let pause = 500;
  const stop = new AbortController();
  const url = new URL('/v1/events', options.url);
  if (options.types.length > 0) url.searchParams.set('types', options.types.join(','));
  for (;;) {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'text/event-stream', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...(last === undefined ? {} : { 'last-event-id': String(last) }) },
        signal: stop.signal,
      });
    } catch (error) {
      options.onNotice(`cannot reach ${options.url} (${(error as Error).message}); trying again in ${pause} ms`);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(MAX_BACKOFF_MS, pause * 2);
      continue;
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      options.onNotice(`${url.pathname} answered HTTP ${response.status}: ${text.slice(0, 500)}`);
      return 2;
    }
    const type = response.headers.get('content-type') ?? '';
    if (!/^text\/event-stream\b/i.test(type)) {
      // a wrong port, a proxy's sign-in page: a 2xx that is not a stream would be read as one that sent nothing, again and again
      await response.body.cancel().catch(() => undefined);
      options.onNotice(`${url.href} answered HTTP ${response.status} with ${type === '' ? 'no content type' : `content type ${type}`}, not an event stream: is --url (HLDP_URL) the gateway's address?`);
      return 2;
    }
    let done = false;
    let heard = false;
    const parser = createParser({
      onEvent: (message) => {
        if (message.id !== undefined && /^\d+$/.test(message.id)) last = Number(message.id);
        if (message.event === 'reset') {
          options.onNotice(`some events were missed: ${message.data}`);
          return;
        }
        if (done || !message.event) return;
        options.onEvent(JSON.parse(message.data) as HldpEvent);
        if (++received >= options.count) {
          done = true;
          stop.abort();
        }
      },
    });
    // the stream's first block is `id: N` without data, which the parser does not hand on: a tail that saw no event resumes from it
    const ids = blockIds((id) => (last = id));
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        heard = true;
        const text = decoder.decode(chunk as Uint8Array, { stream: true });
        parser.feed(text);
        ids(text);
      }
    } catch (error) {
      if (!done) options.onNotice(`the stream broke (${(error as Error).message}); resuming after ${last ?? 'now'}`);
    }
    if (done) return 0;
    // a connection that brought anything (an event, a keep-alive comment) resets the pause; one that ended at once backs off as a refused one does
    if (heard) pause = 500;
    else options.onNotice(`the stream from ${options.url} ended before sending anything; trying again in ${pause} ms`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    if (!heard) pause = Math.min(MAX_BACKOFF_MS, pause * 2);
  }
}
