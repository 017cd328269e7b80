import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventHub, ResetInfo } from './event-hub.js';
import type { EventType, HldpEvent } from './event-types.js';

/** How one SSE response is served. */
export interface SseOptions {
  /** resume after this id (the request's `Last-Event-ID`) */
  after?: number;
  accepts?: (event: HldpEvent) => boolean;
  /** the only types `accepts` lets through, when narrower than all: a resumed stream reads only those from the store */
  types?: readonly EventType[];
  /** a comment line this often keeps proxies from closing an idle stream */
  heartbeatMs?: number;
  /**
   * a subscriber that reads slower than events come is cut off once this much is queued for it; its EventSource
   * reconnects with `Last-Event-ID` and resumes from the backlog, so nothing is lost and no memory grows without bound
   */
  maxQueuedBytes?: number;
  /** what the browser waits before reconnecting, in ms */
  retryMs?: number;
}

const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * `text` as one HTTP/1.1 chunk, bytes ready for the socket. An SSE response is written straight to its socket: through
 * `response.write` each of 200 subscribers cost an encoding of the frame, four buffered writes and a cork — most of
 * the server's time per event once the event log stopped waiting for fsync (bench/events' CPU profile).
 */
function chunk(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1'), body, CRLF]);
}

// one event object is handed to every subscriber: framed and encoded once, not once per connection
const frames = new WeakMap<HldpEvent, { text: string; chunk: Buffer }>();

/** One SSE frame (`id`, `event` and one `data` line: JSON has no raw newlines), as text and as a chunk. */
function eventFrame(event: HldpEvent): { text: string; chunk: Buffer } {
  let frame = frames.get(event);
  if (frame === undefined) {
    const text = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frame = { text, chunk: chunk(text) };
    frames.set(event, frame);
  }
  return frame;
}

/** The `reset` frame: its id moves the client's Last-Event-ID to where it goes on live. */
function resetFrame(info: ResetInfo): string {
  return `id: ${info.newest}\nevent: reset\ndata: ${JSON.stringify(info)}\n\n`;
}

/**
 * Where a stream resumes: the `Last-Event-ID` header (an EventSource that reconnects sends it), else the query's
 * `after` (as `hldp://events?after=` takes it) or `last_event_id` (for clients that cannot set headers), at most one of
 * them; an id, or why it is not one.
 */
export function lastEventId(header: string | undefined, query: { after?: unknown; last_event_id?: unknown } = {}): number | undefined | { error: string } {
  if (typeof query.after === 'string' && typeof query.last_event_id === 'string') return { error: "give 'after' or 'last_event_id', not both: each is the id of the event to resume after" };
  const [name, value] = header !== undefined && header !== '' ? ['Last-Event-ID', header] : typeof query.after === 'string' ? ["'after'", query.after] : ["'last_event_id'", typeof query.last_event_id === 'string' ? query.last_event_id : undefined];
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value.trim())) return { error: `${name} must be the id of an event (a non-negative integer) to resume after, got '${value.slice(0, 40)}'` };
  return Number(value.trim());
}

/** Serves the hub's events on a response as Server-Sent Events until the client goes away. */
export async function streamEvents(hub: EventHub, request: IncomingMessage, response: ServerResponse, options: SseOptions = {}): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx and similar proxies would otherwise hold events back
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
  const limit = options.maxQueuedBytes ?? 4 * 1024 * 1024;
  const { socket } = response;
  // the headers are out and every frame is one chunk of the body; a response that is not chunked (HTTP/1.0) is written through it
  const direct = socket !== null && response.chunkedEncoding;
  let open = true;
  let corked = false;
  const write = (text: string, framed?: Buffer): void => {
    if (!open) return;
    // (a response's writableLength counts its socket's queue too, so it sees what was written straight to it)
    if (response.writableLength > limit) {
      open = false;
      response.destroy();
      return;
    }
    if (!direct) {
      response.write(text);
      return;
    }
    // events delivered in one turn of the event loop leave in one write
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    socket.write(framed ?? chunk(text));
  };
  write(`retry: ${options.retryMs ?? 2000}\n\n`);
  const unsubscribe = await hub.subscribe({
    ...(options.after === undefined ? {} : { after: options.after }),
    ...(options.accepts ? { accepts: options.accepts } : {}),
    ...(options.types ? { types: options.types } : {}),
    send: (event) => {
      const frame = eventFrame(event);
      write(frame.text, frame.chunk);
    },
    reset: (info) => write(resetFrame(info)),
  });
  // a live subscriber learns where it stands, so that a reconnect resumes from here (an id line with no data sets it)
  if (options.after === undefined) write(`id: ${hub.lastId}\n\n`);
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), options.heartbeatMs ?? 15_000);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      open = false;
      clearInterval(heartbeat);
      unsubscribe();
      resolve();
    };
    if (request.destroyed || response.destroyed) done();
    else {
      response.once('close', done);
      request.once('close', done);
    }
  });
}
