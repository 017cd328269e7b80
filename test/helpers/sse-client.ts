import { createParser } from 'eventsource-parser';

/** One SSE message as a client receives it. */
export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** A real SSE connection: what has arrived, and a way to wait for a message that matches. */
export interface SseClient {
  messages: SseMessage[];
  /** the parsed `data` of the events received (not `reset`) */
  events(): Array<{ id: number; type: string; data: Record<string, any> }>;
  /** resolves with the first message (already received or still to come) that matches */
  next(match: (message: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  status: number;
  headers: Headers;
  close(): void;
}

/** Opens `GET path` on the server as an SSE client with the headers given (e.g. Last-Event-ID, Authorization). */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const messages: SseMessage[] = [];
  const waiters = new Set<{ match: (message: SseMessage) => boolean; resolve: (message: SseMessage) => void }>();
  const parser = createParser({
    onEvent: (event) => {
      const message = { id: event.id, event: event.event, data: event.data };
      messages.push(message);
      for (const waiter of waiters) {
        if (waiter.match(message)) {
          waiters.delete(waiter);
          waiter.resolve(message);
        }
      }
    },
  });
  if (response.body) {
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      } catch {
        // closed by the test
      }
    })();
  }
  return {
    messages,
    status: response.status,
    headers: response.headers,
    events: () => messages.filter((message) => message.event !== 'reset' && message.data).map((message) => JSON.parse(message.data)),
    next(match, timeoutMs = 15_000) {
      const found = messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (message: SseMessage) => (clearTimeout(timer), resolve(message)) };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching SSE message within ${timeoutMs} ms; received: ${JSON.stringify(messages).slice(0, 2000)}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () => controller.abort(),
  };
}
