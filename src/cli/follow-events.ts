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
 * How much of a refusal's body is read (its first 500 characters are quoted), and for how long: what answers at --url
 * need not be the gateway, and a body that never ends was read whole into memory (review Z13, Z13-3).
 */
const ERROR_BODY_BYTES = 4096;
const ERROR_BODY_MS = 10_000;
/**
 * The most characters of a line or an event not yet ended the parser holds: the gateway's events are a few KiB (an
 * event's params are cut at 4,096 characters, a failure's error at 2,000); one that never ended grew its buffer
 * without bound (review Z13, Z13-3).
 */
export const MAX_PENDING_EVENT_CHARS = 8 * 1024 * 1024;

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
      const text = await headOf(response.body, ERROR_BODY_BYTES, ERROR_BODY_MS);
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
    let overflow = false;
    const parser = createParser({
      // what the parser holds of a line or an event not yet ended: a stream that never ends one is not the gateway's
      maxBufferSize: MAX_PENDING_EVENT_CHARS,
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') overflow = true;
      },
      onEvent: (message) => {
        if (message.id !== undefined && /^\d+$/.test(message.id)) last = Number(message.id);
        if (message.event === 'reset') {
          options.onNotice(`some events were missed: ${message.data.length > 500 ? `${message.data.slice(0, 500)}…` : message.data}`);
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
        if (overflow) break;
        ids(text);
      }
    } catch (error) {
      if (!done) options.onNotice(`the stream broke (${(error as Error).message}); resuming after ${last ?? 'now'}`);
    }
    if (done) return 0;
    if (overflow) {
      options.onNotice(`${url.href} sent more than ${MAX_PENDING_EVENT_CHARS} characters without ending an event (the gateway's own are bounded far below that): stopped; is --url (HLDP_URL) the gateway's address?`);
      return 2;
    }
    // a connection that brought anything (an event, a keep-alive comment) resets the pause; one that ended at once backs off as a refused one does
    if (heard) pause = 500;
    else options.onNotice(`the stream from ${options.url} ended before sending anything; trying again in ${pause} ms`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    if (!heard) pause = Math.min(MAX_BACKOFF_MS, pause * 2);
  }
}

/** The first `bytes` of a body, as text, read for at most `ms`; the rest is not read (the connection is dropped). */
async function headOf(body: ReadableStream<Uint8Array> | null, bytes: number, ms: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ done: true; value: undefined }>((resolve) => {
    timer = setTimeout(() => resolve({ done: true, value: undefined }), ms);
  });
  try {
    while (size < bytes) {
      const step = await Promise.race([reader.read(), late]);
      if (step.done) break;
      chunks.push(step.value);
      size += step.value.length;
    }
  } catch {
    // what came before the failure is still quoted
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, bytes).toString('utf8');
}
