/** A signal that aborts at a deadline or with any of its sources, and the way to stop its timer early. */
export interface DeadlineSignal {
  signal: AbortSignal;
  /** Stops the timer and forgets the sources: call it once the work the deadline bounds is over. */
  dispose(): void;
}

/**
 * A signal that aborts with a `TimeoutError` after `ms`, or as soon as any of `sources` aborts (with its reason).
 * Unlike `AbortSignal.any([…, AbortSignal.timeout(ms)])`, its timer holds the signal strongly: Node 20's
 * `AbortSignal.any` holds its sources weakly, so a timeout signal nothing else references is collected with its
 * timer once garbage collection runs, and the deadline never comes (review S, S1: a webhook receiver's endless
 * answer was read for 153 s under a 10 s deadline). The timer does not keep the process alive.
 */
export function deadlineSignal(ms: number, ...sources: ReadonlyArray<AbortSignal | undefined>): DeadlineSignal {
  const controller = new AbortController();
  const listening: Array<[AbortSignal, () => void]> = [];
  const dispose = (): void => {
    clearTimeout(timer);
    for (const [source, listener] of listening.splice(0)) source.removeEventListener('abort', listener);
  };
  const abort = (reason: unknown): void => {
    dispose();
    controller.abort(reason);
  };
  const timer = setTimeout(() => abort(new DOMException(`the deadline of ${ms} ms passed`, 'TimeoutError')), ms);
  timer.unref();
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      abort(source.reason);
      break;
    }
    const listener = (): void => abort(source.reason);
    source.addEventListener('abort', listener, { once: true });
    listening.push([source, listener]);
  }
  return { signal: controller.signal, dispose };
}
