import { setTimeout as sleep } from 'node:timers/promises';
import { throwIfStopped } from './source.js';

/** How long a scan waits for another process's lock on the clone (its fetch and read) before it fails. */
const WAIT_MS = 120_000;

/** A lock not refreshed for this long is taken as its holder's, dead (proper-lockfile refreshes it at half this). */
const STALE_MS = 60_000;

/**
 * The clone's lock in `workDir`, taken once no other process holds it (a second scan of the same remote into the same
 * cache): two processes updating one clone at once would corrupt it. The wait ends on `signal` (`ScanStopped`), between
 * two tries: proper-lockfile's own retries cannot be stopped, and a server stopped during its first scan waited out
 * the holder's fetch, up to two minutes (notes 56-57). Nothing is written before the lock is held, so a stop leaves
 * neither a half-written clone nor a lock of its own.
 */
export async function lockClone(lockfile: typeof import('proper-lockfile'), workDir: string, signal?: AbortSignal): Promise<() => Promise<void>> {
  const deadline = Date.now() + WAIT_MS;
  // proper-lockfile's retries were 50 ms, then 100, then 200 ms between tries
  for (let pause = 50; ; pause = Math.min(pause * 2, 200)) {
    throwIfStopped(signal);
    try {
      return await lockfile.lock(workDir, { retries: 0, stale: STALE_MS });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED' || Date.now() >= deadline) throw error;
    }
    await sleep(pause, undefined, signal ? { signal } : {}).catch(() => throwIfStopped(signal));
  }
}
