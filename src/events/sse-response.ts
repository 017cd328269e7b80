import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventHub, ResetInfo } from './event-hub.js';
import type { HldpEvent } from './event-types.js';

/** How one SSE response is served. */
export interface SseOptions {
  /** resume after this id (the request's `Last-Event-ID`) */
  after?: number;
  accepts?: (event: HldpEvent) => boolean;
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

// one event object is handed to every subscriber: serialised once, not once per connection
const frames = new WeakMap<HldpEvent, string>();

/** One SSE frame: `id`, `event` and one `data` line (JSON has no raw newlines). */
export function sseFrame(event: HldpEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

/** The `reset` frame: its id moves the client's Last-Event-ID to where it goes on live. */
function resetFrame(info: ResetInfo): string {
  return `id: ${info.newest}\nevent: reset\ndata: ${JSON.stringify(info)}\n\n`;
}

/** `Last-Event-ID` (header, or `last_event_id` in the query for clients that cannot set headers): an id, or why it is not one. */
export function lastEventId(header: string | undefined, query: unknown): number | undefined | { error: string } {
  const value = header ?? (typeof query === 'string' ? query : undefined);
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value.trim())) return { error: `Last-Event-ID must be the id of an event (a non-negative integer), got '${value.slice(0, 40)}'` };
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
  let open = true;
  const write = (text: string): void => {
    if (!open) return;
    if (response.writableLength > limit) {
      open = false;
      response.destroy();
      return;
    }
    response.write(text);
  };
  write(`retry: ${options.retryMs ?? 2000}\n\n`);
  const unsubscribe = await hub.subscribe({
    ...(options.after === undefined ? {} : { after: options.after }),
    ...(options.accepts ? { accepts: options.accepts } : {}),
    send: (event) => write(sseFrame(event)),
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
