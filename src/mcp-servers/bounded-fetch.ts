/** What an HTTP MCP server's answer may hold: one JSON-RPC message, or one event of its event stream. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** What the fetch tells its connection about the event streams answering requests. */
export interface AnswerEnds {
  /**
   * The event stream answering request `id` ended (`reason` says how) and the SDK will not resume it (no event of it
   * carried an id): unless the answer came within it, the call would wait for its deadline.
   */
  onEnded?: (id: string | number, reason: string) => void;
}

type Id = string | number;

/** How long a POST that asks nothing (an answer to the server's request, a notification) may wait for the server's reply. */
export const ANSWER_POST_TIMEOUT_MS = 10_000;
/** How many exchanges with one server may be open at once: each holds a socket of the gateway's. */
export const MAX_OPEN_EXCHANGES = 64;

/** What holds a server's exchanges: `answerTimeoutMs` for a POST that asks nothing, at most `open` at once. */
export interface ExchangeLimits {
  answerTimeoutMs?: number;
  open?: number;
}

/**
 * `fetch` for the SDK's Streamable HTTP client transport, its answers bounded: a JSON answer to `maxBytes` in all, an
 * event stream to `maxBytes` per event (bytes since the last blank line). The SDK reads a JSON answer whole and parses
 * an event stream without a limit, so a server streaming one endless event grew the gateway's memory without end,
 * even after the call's receipt said it timed out. Past the bound the answer fails, and so does the call.
 *
 * It also ends what the SDK leaves running: a request's answer is dropped with its connection once the SDK sends
 * `notifications/cancelled` for it (the call's deadline passed, or its caller went away), where the SDK read it on to
 * its end; and an event stream that ends or fails is told to `ends`, where the SDK left its call to wait for its deadline.
 */
export function boundedFetch(maxBytes = MAX_ANSWER_BYTES, ends: AnswerEnds = {}, limits: ExchangeLimits = {}): typeof fetch {
  const open = new Map<Id, AbortController>();
  const answerTimeoutMs = limits.answerTimeoutMs ?? ANSWER_POST_TIMEOUT_MS;
  const most = limits.open ?? MAX_OPEN_EXCHANGES;
  // every exchange holds a socket until its answer ends: a server that floods requests (pings) and never answers the
  // client's POSTed answers held one each, without end, until the gateway ran out of descriptors (review K, K15)
  let exchanges = 0;
  return async (input, init) => {
    const { request, cancelled } = outgoing(init?.body);
    if (cancelled !== undefined) {
      open.get(cancelled)?.abort(new Error('the call was cancelled'));
      open.delete(cancelled);
    }
    if (exchanges >= most) throw new Error(`the MCP server leaves ${exchanges} exchanges unanswered, the most one server may have open: the gateway sends it nothing more until they end`);
    exchanges += 1;
    let holding = true;
    const release = (): void => {
      if (holding) (holding = false), (exchanges -= 1);
    };
    const own = request === undefined ? undefined : new AbortController();
    if (own) open.set(request!, own);
    const forget = (): void => {
      release();
      if (own && open.get(request!) === own) open.delete(request!);
    };
    // a POST that asks nothing (an answer, a notification) is done once the server took it: it may not wait for long
    const signals = [init?.signal, own?.signal, !own && init?.method === 'POST' ? AbortSignal.timeout(answerTimeoutMs) : undefined].filter((signal): signal is AbortSignal => signal != null);
    let response: Response;
    try {
      response = await fetch(input, signals.length === 0 ? init : { ...init, signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) });
    } catch (error) {
      forget();
      throw error;
    }
    if (!response.body) {
      forget();
      return response;
    }
    const events = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream') ? new EventBound(maxBytes) : undefined;
    let counted = 0;
    const end = (reason: string): void => {
      forget();
      if (events && request !== undefined && !own!.signal.aborted && !events.resumable) ends.onEnded?.(request, reason);
    };
    const reader = response.body.getReader();
    const bounded = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          end(`failed (${error instanceof Error ? error.message : String(error)})`);
          throw error;
        }
        if (next.done) {
          end('ended');
          return controller.close();
        }
        if (events ? events.over(next.value) : (counted += next.value.byteLength) > maxBytes) {
          const error = new Error(`an answer from the MCP server is larger than ${maxBytes} bytes${events ? ' in one event' : ''}`);
          end(`was dropped: ${error.message}`);
          reader.cancel(error).catch(() => undefined);
          throw error;
        }
        controller.enqueue(next.value);
      },
      cancel(reason) {
        forget();
        return reader.cancel(reason);
      },
    });
    return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The request a POST body sends (its id), or the request a `notifications/cancelled` in it cancels. */
function outgoing(body: unknown): { request?: Id; cancelled?: Id } {
  if (typeof body !== 'string') return {};
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return {};
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return {};
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
  if (typeof method !== 'string') return {};
  if (typeof id === 'string' || typeof id === 'number') return { request: id };
  const cancelled = method === 'notifications/cancelled' ? params?.requestId : undefined;
  return typeof cancelled === 'string' || typeof cancelled === 'number' ? { cancelled } : {};
}

/** Counts an event stream's bytes per event, and sees whether any event carries an id (the SDK resumes such a stream). */
export class EventBound {
  resumable = false;
  #counted = 0;
  #lineLength = 0;
  /** how many of the current line's first bytes spell `id:` (and a space after it: 4) */
  #idPrefix = 0;

  constructor(private readonly maxBytes: number) {}

  /** Whether `chunk` takes an event past the bound (checked at each byte: a blank line later in it must not hide one). */
  over(chunk: Uint8Array): boolean {
    for (const byte of chunk) {
      if (++this.#counted > this.maxBytes) return true;
      if (byte === 0x0a) {
        // a blank line ends an event
        if (this.#lineLength === 0) this.#counted = 0;
        this.#lineLength = 0;
        this.#idPrefix = 0;
      } else if (byte !== 0x0d) {
        // an id the SDK keeps: "id:", then one space at most, then a value
        if (this.#lineLength === this.#idPrefix) {
          if (this.#idPrefix < 3 && byte === ID_FIELD[this.#idPrefix]) this.#idPrefix++;
          else if (this.#idPrefix === 3 && byte === 0x20) this.#idPrefix++;
          else if (this.#idPrefix >= 3) this.resumable = true;
        }
        this.#lineLength++;
      }
    }
    return false;
  }
}

const ID_FIELD = [0x69, 0x64, 0x3a]; // "id:"
