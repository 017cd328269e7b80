import type { ProgressUpdate } from '../core/index.js';
import type { CallOptions } from '../gateway/service/index.js';

/** The `_meta` key of a `tools/call` request that asks for the call's own deadline in ms, as `timeout_ms` does over HTTP. */
export const TIMEOUT_META = 'hldp/timeout_ms';

/** What a `tools/call` request's `_meta` asks of the call, or what is wrong with it. */
export type CallMeta = { ok: true; options: CallOptions } | { ok: false; error: string };

/** Progress notifications sent for one request: the result is sent after them, so a client never sees it first. */
export class ProgressSent {
  readonly #pending = new Set<Promise<void>>();

  track(sending: Promise<void>): void {
    const settled = sending.catch(() => undefined).finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
  }

  /** Resolves once every notification sent so far has been handed to the transport. */
  async flushed(): Promise<void> {
    await Promise.all([...this.#pending]);
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
    if (context.signal.aborted) return;
    sent.track(context.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } }));
  };
}
