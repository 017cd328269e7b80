import type { Database, Statement } from 'better-sqlite3';
import type { RunPlace } from './approval-store.js';
import { canonicalJson } from './canonical-params.js';
import type { InstanceRoll, LiveInstance } from './store.js';

/** The roll of live instances in the `gateway_instances` table: each beat renews a row and drops the stale ones. */
export class SqliteInstances implements InstanceRoll {
  readonly #upsert: Statement<[string, string, number]>;
  readonly #prune: Statement<[number]>;
  readonly #live: Statement<[number], { instance: string; place: string; seen_ms: number }>;
  readonly #leave: Statement<[string]>;
  readonly #beat: (by: string, place: string, seenMs: number, staleBeforeMs: number) => void;
  readonly #now: () => number;

  constructor(database: Database, options: { now: () => number }) {
    this.#upsert = database.prepare('INSERT INTO gateway_instances (instance, place, seen_ms) VALUES (?, ?, ?) ON CONFLICT (instance) DO UPDATE SET place = excluded.place, seen_ms = excluded.seen_ms');
    this.#prune = database.prepare('DELETE FROM gateway_instances WHERE seen_ms < ?');
    this.#live = database.prepare('SELECT instance, place, seen_ms FROM gateway_instances WHERE seen_ms >= ? ORDER BY instance');
    this.#leave = database.prepare('DELETE FROM gateway_instances WHERE instance = ?');
    this.#now = options.now;
    const beat = database.transaction((by: string, place: string, seenMs: number, staleBeforeMs: number) => {
      this.#prune.run(staleBeforeMs);
      this.#upsert.run(by, place, seenMs);
    });
    // the write lock first, waited for: a deferred transaction that another process's commit overtakes fails at once
    this.#beat = (by, place, seenMs, staleBeforeMs) => beat.immediate(by, place, seenMs, staleBeforeMs);
  }

  async beat(by: string, place: RunPlace, staleBeforeMs: number): Promise<void> {
    this.#beat(by, canonicalJson(place), this.#now(), staleBeforeMs);
  }

  async live(sinceMs: number): Promise<LiveInstance[]> {
    return this.#live.all(sinceMs).map((row) => ({ by: row.instance, place: JSON.parse(row.place) as RunPlace, seen_ms: row.seen_ms }));
  }

  async leave(by: string): Promise<void> {
    this.#leave.run(by);
  }
}
