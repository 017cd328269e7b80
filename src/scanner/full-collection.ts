import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * A full garbage collection now. For the few places where a scan has just let go of far more than it keeps, and goes
 * on allocating: V8 collects its old generation only once that has grown by about what it held at the last
 * collection, so the garbage of the step before stays in the heap (and the memory it kept outside it) while the next
 * step grows the process beside it. Measured at 100,000 generated tools (issue #18): indexing a clone's pack leaves
 * ~130 MB of heap of which ~11 MB live (~20 ms to collect). After a cold scan's reading (~90 MB of heap and buffers,
 * ~75 MB live) it took ~180 ms, a pause, where `withHeapGrowingAtMost` now keeps the garbage down as it is made.
 * Through `gc`, exposed for this process on first use (no context of ours runs code of anyone else's).
 */
export function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/**
 * How much V8's old generation may grow past what a full collection left while `withHeapGrowingAtMost` runs. V8's own
 * factor goes up to 4× on a machine with memory to spare: at 100,000 tools a cold scan's live heap of ~75 MB was let
 * grow to ~150 MB (its garbage, and the buffers outside the heap that garbage kept, ~60 MB more) before a collection.
 */
export const HEAP_GROWING_PERCENT = 30;

// whether the process was started with a factor of its own, which is then left as it is
const GIVEN = /heap[-_]growing[-_]percent/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
let running = 0;

/**
 * Runs `work` with the old generation let grow by at most `HEAP_GROWING_PERCENT` past each full collection (V8's
 * `--heap-growing-percent`, set for this process while any such work runs, then given back to V8's own choice): for
 * a scan that holds much and makes much garbage beside it, V8 then collects often enough that the garbage does not
 * pile up. It costs more collections (done mostly beside the main thread, by V8's helper threads), not a pause.
 */
export async function withHeapGrowingAtMost<T>(work: () => Promise<T>): Promise<T> {
  if (running++ === 0 && !GIVEN) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  try {
    return await work();
  } finally {
    if (--running === 0 && !GIVEN) setFlagsFromString('--heap-growing-percent=0');
  }
}
