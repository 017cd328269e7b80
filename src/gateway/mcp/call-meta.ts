import type { CallOptions } from '../service/index.js';

/** The `_meta` key of a `tools/call` request that asks for the call's own deadline in ms, as `timeout_ms` does over HTTP. */
export const TIMEOUT_META = 'hldp/timeout_ms';

/** What a `tools/call` request's `_meta` asks of the call, or what is wrong with it. */
export type CallMeta = { ok: true; options: CallOptions } | { ok: false; error: string };

/** Reads the call options from a request's `_meta` (the deadline) and the SDK's request context (the cancel signal). */
export function readCallMeta(meta: Record<string, unknown> | undefined, signal: AbortSignal): CallMeta {
  const requested = meta?.[TIMEOUT_META];
  if (requested === undefined) return { ok: true, options: { signal } };
  if (typeof requested !== 'number' || !Number.isSafeInteger(requested) || requested < 1) {
    return { ok: false, error: `_meta["${TIMEOUT_META}"] must be a whole number of milliseconds (at least 1); got ${JSON.stringify(requested)}. Nothing ran.` };
  }
  return { ok: true, options: { signal, timeoutMs: requested } };
}
