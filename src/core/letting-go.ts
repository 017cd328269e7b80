/** How long one slice of long work may hold the event loop before it lets go (a request waits at most about this). */
export const SLICE_MS = 10;

/**
 * Runs `steps` to its end, letting the event loop go (a macrotask turn, so timers, I/O and requests run)
 * whenever the current slice has run `sliceMs`. The generator yields at points where stopping is cheap
 * and safe; how often it yields sets how close to `sliceMs` each slice stays. Once `signal` is aborted the work
 * stops at its next turn (the generator closed) and the promise rejects with the signal's reason.
 */
export async function runLettingGo<T>(steps: Generator<unknown, T, void>, sliceMs = SLICE_MS, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await letGo();
      // a stop asked meanwhile (a server closing) ends the work here rather than after seconds of CPU for nobody
      if (signal?.aborted) {
        steps.return(undefined as T);
        throw signal.reason;
      }
      sliceStart = performance.now();
    }
  }
}

/** Runs `steps` to its end at once (the same work, for callers that cannot wait). */
export function runToEnd<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** One turn of the event loop. */
export function letGo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
