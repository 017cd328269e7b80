import type { ReceiptStore, RetentionPolicy, PruneResult } from './store.js';

/** Receipts deleted per transaction: small, so a pruning pass never holds up the calls saving theirs. */
export const PRUNE_BATCH = 500;

const DAY_MS = 24 * 60 * 60 * 1000;

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

/** Pruning in the background: one pass now and every `intervalMs`, never two at once; a failed pass is reported and retried next time. */
export function scheduleRetention(
  receipts: ReceiptStore,
  policy: RetentionPolicy,
  options: { intervalMs: number; onPruned?: (result: PruneResult) => void; onError?: (error: Error) => void },
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = (): void => {
    if (running || stopped) return;
    running = receipts
      .prune(policy)
      .then((result) => {
        if (result.deleted > 0) options.onPruned?.(result);
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
