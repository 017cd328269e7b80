import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/** The longest a read is held for a test that has stopped answering: the read then goes on. */
const LONGEST_HOLD_MS = 120_000;
let holds = 0;

/**
 * For tests only: with HLDP_TEST_HOLD_STORE_READS naming a folder, while a file `hold` is there, each read the store's
 * thread makes (a receipt, a page, a view of calls, a walk of the chain) first writes `held-<name>` there and waits,
 * before it reads, until the test writes `release-<name>`. A test then asks /healthz while the read is held and lets it go only once answered: the
 * order is the test's, not the scheduler's (review Z9, Z9-7: two requests sent at once were answered in either order on
 * a loaded host). A read that a change puts back on the event loop never comes here, and its answer comes with no hold
 * (test/helpers/beside-healthz.ts). Unset, as in every deployment, it does nothing.
 */
export function heldForTest(what: string): void {
  const folder = process.env.HLDP_TEST_HOLD_STORE_READS;
  if (!folder || !existsSync(join(folder, 'hold'))) return;
  holds += 1;
  const name = `${process.pid}-${threadId}-${holds}`;
  writeFileSync(join(folder, `held-${name}`), what);
  // this thread is the store's, not the event loop's: it may block
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + LONGEST_HOLD_MS;
  while (!existsSync(join(folder, `release-${name}`)) && Date.now() < until) Atomics.wait(pause, 0, 0, 5);
}
