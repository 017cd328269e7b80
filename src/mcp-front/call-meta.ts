import type { ProgressUpdate } from '../core/index.js';
import type { CallOptions } from '../gateway/service/index.js';

/** The `_meta` key of a `tools/call` request that asks for the call's own deadline in ms, as `timeout_ms` does over HTTP. */
export const TIMEOUT_META = 'hldp/timeout_ms';

/** What a `tools/call` request's `_meta` asks of the call, or what is wrong with it. */
export type CallMeta = { ok: true; options: CallOptions } | { ok: false; error: string };

/** At most one progress notification per request this often: the updates between are coalesced into the latest. */
export const PROGRESS_INTERVAL_MS = 100;

/** A progress message longer than this is cut: it labels a progress bar, it is not the tool's output. */
export const PROGRESS_MESSAGE_CHARS = 1024;

/**
 * Progress notifications of one request: sent at most one every `PROGRESS_INTERVAL_MS`, each the latest update
 * (progress only grows, so one that is overtaken may be dropped), messages cut to `PROGRESS_MESSAGE_CHARS`. The
 * SDK queues what it sends for a client without bound, and a server may send progress as fast as it can write:
 * unthrottled, a client that stopped reading made the gateway keep every update. The result is sent after them,
 * the latest update first, so a client never sees the result before the last progress.
 */
export class ProgressSent {
  readonly #pending = new Set<Promise<void>>();
  #latest: (() => Promise<void>) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastSent = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Sends `send` now if none went out within the interval, else once the interval is over, unless a later one replaces it. */
  offer(send: () => Promise<void>): void {
    this.#latest = send;
    if (this.#timer !== undefined) return;
    const wait = this.#lastSent + PROGRESS_INTERVAL_MS - this.now();
    if (wait <= 0) return this.#sendLatest();
    this.#timer = setTimeout(() => this.#sendLatest(), wait);
    this.#timer.unref();
  }

  /** Drops the update waiting for its turn (the call ended or was cancelled). */
  drop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#latest = undefined;
  }

  /** Sends the update waiting for its turn now, and resolves once every notification has been handed to the transport. */
  async flushed(): Promise<void> {
    this.#sendLatest();
    await Promise.all([...this.#pending]);
  }

  #sendLatest(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const send = this.#latest;
    this.#latest = undefined;
    if (send === undefined) return;
    this.#lastSent = this.now();
    const settled = send().catch(() => undefined).finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
  }
}

/** What a `tools/call` handler gets from the SDK besides the request. */
export interface RequestContext {
  signal: AbortSignal;
  /** sends a notification related to this request (on its own response stream over HTTP) */
  sendNotification: (notification: { method: 'notifications/progress'; params: { progressToken: string | number } & ProgressUpdate }) => Promise<void>;
}

/**
 * Reads the call options from a request's `_meta` — the deadline, and the client's `progressToken`, to which the
 * running tool's progress is passed on as `notifications/progress` — and the SDK's request context (the cancel signal).
 */
export function readCallMeta(meta: Record<string, unknown> | undefined, context: RequestContext, sent: ProgressSent = new ProgressSent()): CallMeta {
  const { signal } = context;
  const token = meta?.progressToken;
  const progress = typeof token === 'string' || typeof token === 'number' ? { onProgress: progressSender(token, context, sent) } : {};
  const requested = meta?.[TIMEOUT_META];
  if (requested === undefined) return { ok: true, options: { signal, ...progress } };
  if (typeof requested !== 'number' || !Number.isSafeInteger(requested) || requested < 1) {
    return { ok: false, error: `_meta["${TIMEOUT_META}"] must be a whole number of milliseconds (at least 1); got ${JSON.stringify(requested)}. Nothing ran.` };
  }
  return { ok: true, options: { signal, timeoutMs: requested, ...progress } };
}

// Progress after the call ended (or was cancelled) is dropped: the client no longer expects it.
function progressSender(progressToken: string | number, context: RequestContext, sent: ProgressSent): (update: ProgressUpdate) => void {
  return (update) => {
    if (context.signal.aborted) return sent.drop();
    const message = update.message === undefined || update.message.length <= PROGRESS_MESSAGE_CHARS ? {} : { message: `${update.message.slice(0, PROGRESS_MESSAGE_CHARS - 1)}…` };
    const params = { progressToken, ...update, ...message };
    // an update that waited for its turn is not sent once the call was cancelled meanwhile (found in review)
    sent.offer(async () => {
      if (!context.signal.aborted) await context.sendNotification({ method: 'notifications/progress', params });
    });
  };
}
