/** Why a run was stopped before it finished on its own. */
export type StopReason = 'timeout' | 'cancelled';

/** A deadline joined with the caller's cancel signal: one signal to pass on, and the reason it fired. */
export interface Deadline {
  signal: AbortSignal;
  /** why `signal` fired, or null while it has not */
  reason(): StopReason | null;
  /** stops the timer; call it once the run is over */
  clear(): void;
}

/** Starts a deadline of `timeoutMs` that also fires when `parent` is aborted. */
export function startDeadline(timeoutMs: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let reason: StopReason | null = null;
  const stop = (why: StopReason): void => {
    if (reason !== null) return;
    reason = why;
    controller.abort(new Error(why === 'timeout' ? `timed out after ${timeoutMs} ms` : 'cancelled by the caller'));
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onParentAbort = (): void => stop('cancelled');
  if (parent?.aborted) stop('cancelled');
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    reason: () => reason,
    clear: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
