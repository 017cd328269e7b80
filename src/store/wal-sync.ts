import { open } from 'node:fs/promises';
import type { Database, Statement } from 'better-sqlite3';

/**
 * Receipts made durable off the event loop. With `synchronous = FULL` a WAL commit fsyncs the log inside the commit,
 * and better-sqlite3 runs the commit on the event loop: every batch of receipts held it 1-6 ms (up to 31 ms at load 22)
 * while every other call and request waited (issue #18: at concurrency 16 the gateway's event loop is what bounds
 * `POST /v1/call`). So a batch commits at `NORMAL` (the frames written to the log, not synced) and is then synced
 * here, by an fsync of the log file on libuv's thread pool, before any of its saves resolves: a receipt is on disk
 * before the call that made it returns, as with FULL, and the other work of the loop goes on meanwhile.
 */
export class WalSync {
  readonly #walPath: string;
  // prepared once: a pragma() call compiles its statement each time, twice a batch
  readonly #normal: Statement;
  readonly #full: Statement;

  private constructor(database: Database, path: string) {
    this.#walPath = `${path}-wal`;
    this.#normal = database.prepare('PRAGMA synchronous = NORMAL');
    this.#full = database.prepare('PRAGMA synchronous = FULL');
  }

  /** The sync of `database`'s log, or undefined where the commit must sync itself: a store in memory, a rollback journal (a file system without shared memory), a connection not at FULL. */
  static of(database: Database, path: string): WalSync | undefined {
    if (path === ':memory:') return undefined;
    if (String(database.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return undefined;
    // 2 is FULL (3, EXTRA, syncs the folder too: left to SQLite)
    if (Number(database.pragma('synchronous', { simple: true })) !== 2) return undefined;
    return new WalSync(database, path);
  }

  /** Runs `commit` (one transaction) with the log written but not synced: `flush` must follow before anyone is told it is stored. */
  relaxed<T>(commit: () => T): T {
    this.#normal.run();
    try {
      return commit();
    } finally {
      this.#full.run();
    }
  }

  /** Syncs the log as it is now (every commit made so far) to disk, off the event loop: the file's data, whoever wrote it. */
  async flush(): Promise<void> {
    const file = await open(this.#walPath, 'r');
    try {
      await file.sync();
    } finally {
      await file.close();
    }
  }
}
