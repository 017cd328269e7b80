import { deadlineSignal } from '../core/index.js';
import { currentAnswerBound, type CallBound } from './answer-bound.js';

/** What an HTTP MCP server's answer may hold: one JSON-RPC message, or one event of its event stream. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** What the fetch tells its connection about the event streams answering requests. */
export interface AnswerEnds {
  /**
   * The event stream answering request `id` ended (`reason` says how) and the SDK will not resume it (no event of it
   * carried an id): unless the answer came within it, the call would wait for its deadline.
   */
  onEnded?: (id: string | number, reason: string) => void;
  /** A POST was not sent: `open` exchanges with the server were waiting for it already, the most there may be. */
  onRefused?: () => void;
  /**
   * `bytes` of an answer (any: a request's, the standalone GET stream's) arrived, before the SDK reads them; false: the
   * server is past its allowance of bytes no request asked for (UnaskedCount), and the answer is dropped here.
   */
  onBytes?: (bytes: number) => boolean;
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
  /** the POSTs that ask nothing (answers to the server's requests — the gateway declares no capability but ping's —, notifications) still waiting */
  const telling = new Set<AbortController>();
  /** the bounded requests sent and not yet over: what a stream no request owns (the standalone GET, a resumption) may carry the answer to */
  const inFlight = new Map<Id, CallBound>();
  // a stream no request owns is held to the largest bound of the calls in flight (the server's own with none): an
  // answer the server sent there, not on its POST, was held only to the server's 64 MiB (review Q, Q6)
  const sharedBound = (): number => {
    let largest: number | undefined;
    for (const [id, call] of inFlight) {
      if (call.over) inFlight.delete(id);
      else largest = Math.max(largest ?? 0, call.maxBytes);
    }
    return largest === undefined ? maxBytes : Math.min(largest, maxBytes);
  };
  return async (input, init) => {
    const { request, cancelled } = outgoing(init?.body);
    if (cancelled !== undefined) {
      open.get(cancelled)?.abort(new Error('the call was cancelled'));
      open.delete(cancelled);
      inFlight.delete(cancelled);
      // what the gateway was still telling the server goes with the call: a server that took answers to its pings and
      // never replied kept their sockets for ANSWER_POST_TIMEOUT_MS after the call's receipt (review K, K15)
      for (const told of telling) told.abort(new Error('the call was cancelled'));
      telling.clear();
    }
    if (exchanges >= most) {
      ends.onRefused?.();
      throw new Error(`the MCP server leaves ${exchanges} exchanges unanswered, the most one server may have open: the gateway sends it nothing more until they end`);
    }
    exchanges += 1;
    let holding = true;
    const release = (): void => {
      if (holding) (holding = false), (exchanges -= 1);
    };
    const own = request === undefined ? undefined : new AbortController();
    if (own) open.set(request!, own);
    const callBound = request === undefined ? undefined : currentAnswerBound();
    if (callBound !== undefined) {
      for (const [id, call] of inFlight) if (call.over) inFlight.delete(id);
      inFlight.set(request!, callBound);
    }
    const tells = !own && init?.method === 'POST' && cancelled === undefined ? new AbortController() : undefined;
    if (tells) telling.add(tells);
    // a POST that asks nothing (an answer, a notification) is done once the server took it: it may not wait for long
    // (a deadline held by its own timer: an AbortSignal.timeout inside AbortSignal.any is lost to garbage collection on Node 20, review S, S1)
    const deadline = !own && init?.method === 'POST' ? deadlineSignal(answerTimeoutMs) : undefined;
    const forget = (): void => {
      deadline?.dispose();
      release();
      if (own && open.get(request!) === own) open.delete(request!);
      if (tells) telling.delete(tells);
    };
    const signals = [init?.signal, own?.signal, tells?.signal, deadline?.signal].filter((signal): signal is AbortSignal => signal != null);
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
    // a request's answer is held to its call's bound; what the server sends on its own, to the calls' in flight as it
    // arrives (to the server's with none)
    const boundNow = request !== undefined ? (): number => (callBound === undefined ? maxBytes : Math.min(callBound.maxBytes, maxBytes)) : sharedBound;
    const events = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream') ? new EventBound(maxBytes) : undefined;
    // a request's answer has its call's cutter; a stream no request owns is not cut (it may carry any call's answer)
    const cutter = request !== undefined ? callBound?.cutter : undefined;
    let counted = 0;
    const end = (reason: string): void => {
      forget();
      if (events && request !== undefined && !own!.signal.aborted && !events.resumable) ends.onEnded?.(request, reason);
    };
    const reader = response.body.getReader();
    /** what is left of the last chunk read, handed on a piece at a time */
    let rest: Uint8Array | undefined;
    const bounded = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await aTurnOfTheLoop();
        // the call may have been cancelled during that turn (its deadline is a timer): what was read of its answer and
        // not yet handed on goes with it, where the SDK took it on and answered the pings in it after the cancel, each
        // answer holding a socket of a server that never replies for ANSWER_POST_TIMEOUT_MS (review K, K15)
        const stopped = own?.signal.aborted ? own.signal : init?.signal?.aborted ? init.signal : undefined;
        if (stopped) {
          rest = undefined;
          forget();
          reader.cancel(stopped.reason).catch(() => undefined);
          throw stopped.reason;
        }
        if (rest !== undefined) {
          controller.enqueue(rest.subarray(0, PIECE_BYTES));
          rest = rest.byteLength > PIECE_BYTES ? rest.subarray(PIECE_BYTES) : undefined;
          return;
        }
        let next: Awaited<ReturnType<typeof reader.read>>;
        let value: Uint8Array;
        // a long string being cut hands on nothing until it ends: read on (a pull that enqueues nothing is not called again)
        do {
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
          // counted as they arrive: a notification of 30 MB was read whole and parsed before it was counted as one message (review Z21, Z21-5)
          if (ends.onBytes?.(next.value.byteLength) === false) {
            const error = new Error('the MCP server sent more bytes that no request asked for than its allowance: the gateway stopped it');
            end(`was dropped: ${error.message}`);
            reader.cancel(error).catch(() => undefined);
            throw error;
          }
          value = cutter ? cutter.push(next.value) : next.value;
          if (value.byteLength === 0) await aTurnOfTheLoop();
        } while (value.byteLength === 0);
        const bound = boundNow();
        if (events ? events.over(value, bound) : (counted += value.byteLength) > bound) {
          const seen = events ? '' : ` (${counted} bytes arrived before it was dropped)`;
          const most = bound >= maxBytes ? '' : request !== undefined ? ', the most a call of its tool may receive' : ', the most any call in flight on this server may receive (on a stream no request of it owns)';
          const error = new Error(`an answer from the MCP server is larger than ${bound} bytes${events ? ' in one event' : ''}${most}${seen}`);
          end(`was dropped: ${error.message}`);
          // the answer that stream held may have been any call's in flight: each fails now rather than at its deadline
          if (request === undefined && bound < maxBytes) for (const id of inFlight.keys()) ends.onEnded?.(id, `was dropped: ${error.message}`);
          reader.cancel(error).catch(() => undefined);
          throw error;
        }
        controller.enqueue(value.subarray(0, PIECE_BYTES));
        if (value.byteLength > PIECE_BYTES) rest = value.subarray(PIECE_BYTES);
      },
      cancel(reason) {
        forget();
        return reader.cancel(reason);
      },
    });
    return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * How much of an answer is handed to the SDK at once, and for how long it may read without letting the event loop
 * turn. The SDK reads an event stream in one run of microtasks for as long as bytes are waiting, so a server that
 * streamed messages as fast as the gateway read them (pings, log lines, progress) held the loop for hundreds of ms at a
 * time: every timer of the gateway fired late, the call's deadline among them, 3-4 times late on a loaded host
 * (review K, K15). A piece of 16 KiB is a few hundred messages at most, a few ms of work.
 */
const PIECE_BYTES = 16 * 1024;
const SLICE_MS = 10;

let lastTurn = performance.now();
let turnMarked = false;

/** Resolves at once while the loop turned within the last SLICE_MS, else after a turn (timers included) has run. */
function aTurnOfTheLoop(): Promise<void> | undefined {
  if (performance.now() - lastTurn < SLICE_MS) {
    if (!turnMarked) {
      turnMarked = true;
      setImmediate(() => ((turnMarked = false), (lastTurn = performance.now())));
    }
    return undefined;
  }
  // a macrotask of the timers phase: the timers that came due while the SDK read (a deadline's) run before it
  return new Promise<void>((resolve) => setTimeout(() => ((lastTurn = performance.now()), resolve()), 0));
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
  /** whether the last byte was a CR: a LF right after it ends no second line */
  #afterCr = false;

  constructor(private readonly maxBytes: number) {}

  /** Whether `chunk` takes an event past the bound, or past `maxBytes` when given (checked at each byte: a blank line later in it must not hide one). */
  over(chunk: Uint8Array, maxBytes = this.maxBytes): boolean {
    for (const byte of chunk) {
      if (++this.#counted > maxBytes) return true;
      // a line ends at CRLF, LF or a lone CR (as the SDK's parser reads it): a stream of CR-only lines was one endless
      // event here, dropped at the bound though each of its events was small (review O, O12)
      const afterCr = this.#afterCr;
      this.#afterCr = byte === 0x0d;
      if (byte === 0x0a && afterCr) continue;
      if (byte === 0x0a || byte === 0x0d) {
        // a blank line ends an event
        if (this.#lineLength === 0) this.#counted = 0;
        this.#lineLength = 0;
        this.#idPrefix = 0;
      } else {
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
