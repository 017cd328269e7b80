import type { ReceiptStore, RetentionPolicy, PruneResult } from './store.js';

/** Rows deleted per transaction: small, so a pruning pass never holds up the calls saving theirs. */
export const PRUNE_BATCH = 500;

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long an approved request whose receipt is not stored yet is kept: its run may still be going (or its receipt was lost). */
export const APPROVAL_RUN_GRACE_MS = DAY_MS;

/** The time before which a row is too old for the policy, in ms since the epoch; -1 (nothing) without `days`. */
export function retentionCutoff(policy: RetentionPolicy, now: number): number {
  return policy.days === undefined ? -1 : now - policy.days * DAY_MS;
}

/** Runs `batch` (one transaction deleting at most `PRUNE_BATCH` rows) until a batch deletes fewer; resolves to the total. */
export async function pruneInBatches(batch: () => Promise<number> | number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await batch();
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
    // let the calls saving their rows in between
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** How many of the oldest receipts (in seq order, from the checkpoint on) the policy lets go: the longest prefix of `oldest` that is too old or too many. */
export function prunablePrefix(oldest: Array<{ seq: number; started_ms: number }>, headSeq: number, policy: RetentionPolicy, now: number): number {
  const cutoff = policy.days === undefined ? -Infinity : now - policy.days * DAY_MS;
  const lastBeyondRows = policy.maxRows === undefined ? -Infinity : headSeq - policy.maxRows;
  let count = 0;
  for (const row of oldest) {
    if (row.seq <= lastBeyondRows || row.started_ms < cutoff) count += 1;
    else break;
  }
  return count;
}

/** Pruning receipts in the background: one pass now and every `intervalMs`, never two at once; a failed pass is reported and retried next time. */
export function scheduleRetention(
  receipts: ReceiptStore,
  policy: RetentionPolicy,
  options: { intervalMs: number; onPruned?: (result: PruneResult) => void; onError?: (error: Error) => void },
): { stop(): Promise<void> } {
  return schedulePruning(() => receipts.prune(policy), options);
}

/** Any pruning pass (`prune` resolves to what it deleted) in the background, as `scheduleRetention` runs the receipts'. */
export function schedulePruning<Result extends number | { deleted: number }>(
  prune: () => Promise<Result>,
  options: { intervalMs: number; onPruned?: (result: Result) => void; onError?: (error: Error) => void },
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = (): void => {
    if (running || stopped) return;
    running = prune()
      .then((result) => {
        if ((typeof result === 'number' ? result : result.deleted) > 0) options.onPruned?.(result);
      })
      .catch((error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(pass, options.intervalMs);
  timer.unref();
  pass();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
