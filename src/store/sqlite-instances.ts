import type { Database, Statement } from 'better-sqlite3';
import type { RunPlace } from './approval-store.js';
import { pruneRoll } from './approval-rows.js';
import { canonicalJson } from './canonical-params.js';
import type { InstanceRoll, LiveInstance } from './store.js';

// how long a beat waits for another process's write lock, on the event loop, before it leaves the renewal to the next
// beat: the store's busy timeout (5 s) held every request of an idle gateway as long (review Z12, Z12-8)
const BEAT_PATIENCE_MS = 20;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * The roll of live instances in the `gateway_instances` table: each beat renews a row and drops the long-quiet ones.
 * Every instance on a SQLite file runs on its host, so the host's clock (injectable for tests) is the roll's one clock.
 */
export class SqliteInstances implements InstanceRoll {
  readonly #database: Database;
  readonly #live: Statement<[], { instance: string; place: string; seen_ms: number; left_ms: number | null }>;
  readonly #leave: Statement<[number, string]>;
  readonly #beat: (by: string, place: string, seenMs: number, keptBeforeMs: number) => void;
  readonly #now: () => number;

  constructor(database: Database, options: { now: () => number }) {
    this.#database = database;
    const upsert = database.prepare<[string, string, number]>('INSERT INTO gateway_instances (instance, place, seen_ms) VALUES (?, ?, ?) ON CONFLICT (instance) DO UPDATE SET place = excluded.place, seen_ms = excluded.seen_ms, left_ms = NULL');
    const prune = database.prepare<[number]>(pruneRoll("json_extract(rule, '$.filed_by.by')", '?'));
    // every row: one quiet for longer than kept is a pending request's filer's, or one a beat that met another process's lock did not remove yet
    this.#live = database.prepare('SELECT instance, place, seen_ms, left_ms FROM gateway_instances ORDER BY instance');
    this.#leave = database.prepare('UPDATE gateway_instances SET left_ms = ? WHERE instance = ?');
    this.#now = options.now;
    const beat = database.transaction((by: string, place: string, seenMs: number, keptBeforeMs: number) => {
      prune.run(keptBeforeMs);
      upsert.run(by, place, seenMs);
    });
    // the write lock first: a deferred transaction that another process's commit overtakes fails at once
    this.#beat = (by, place, seenMs, keptBeforeMs) => beat.immediate(by, place, seenMs, keptBeforeMs);
  }

  async beat(by: string, place: RunPlace, keptMs: number): Promise<{ rows: LiveInstance[]; renewed: boolean }> {
    const now = this.#now();
    let renewed = true;
    const patience = this.#database.pragma('busy_timeout', { simple: true }) as number;
    this.#database.pragma(`busy_timeout = ${BEAT_PATIENCE_MS}`);
    try {
      this.#beat(by, canonicalJson(place), now, now - keptMs);
    } catch (error) {
      if (!isBusy(error)) throw error;
      renewed = false;
    } finally {
      this.#database.pragma(`busy_timeout = ${patience}`);
    }
    // a reader in WAL mode waits for no writer
    const rows = this.#live.all().map((row) => ({ by: row.instance, place: JSON.parse(row.place) as RunPlace, quiet_ms: now - row.seen_ms, left: row.left_ms !== null }));
    return { rows, renewed };
  }

  async leave(by: string): Promise<void> {
    this.#leave.run(this.#now(), by);
  }
}
