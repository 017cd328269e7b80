import type { Database, Statement } from 'better-sqlite3';
import { BatchWriter } from './batch-writer.js';
import type { EventLog, NewEvent, StoredEvent } from './store.js';

/** how long a delivery claim waits for another process's write lock before the notifier delivers without one */
const CLAIM_PATIENCE_MS = 20;

interface PendingEvent {
  event: NewEvent;
  stored?: StoredEvent;
}

/**
 * The event log in the `events` table. Appends made in one turn of the event loop share one IMMEDIATE transaction;
 * SQLite has one writer at a time (across the processes sharing the file too), so `seq` order is commit order.
 *
 * Its commits skip the fsync that receipts wait for (`synchronous = NORMAL` for the event transaction alone): an
 * fsync blocks the whole event loop for 1-6 ms on this machine, so it delayed every delivery, and an event is a
 * notice of something already durable (the receipt, committed with FULL before its event). In WAL mode a NORMAL commit
 * survives a crash of the process; only a power loss can roll back the events written since the store's last FULL
 * commit (the next receipt's fsync covers them) — a subscriber resuming after one is sent a `reset`.
 */
export class SqliteEventLog implements EventLog {
  readonly #database: Database;
  readonly #writer: BatchWriter<PendingEvent>;
  readonly #insert: Statement<[string, number, string]>;
  readonly #after: Statement<[number, number], StoredEvent>;
  readonly #last: Statement<[], { seq: number }>;
  readonly #first: Statement<[], { seq: number }>;
  readonly #claim: Statement<[number, string, string, number]>;
  readonly #statements = new Map<string, Statement<unknown[], StoredEvent>>();
  /** the connection's own `synchronous` level, restored after each event transaction */
  readonly #synchronous: number;

  constructor(database: Database) {
    this.#database = database;
    this.#synchronous = Number(database.pragma('synchronous', { simple: true }));
    this.#insert = database.prepare('INSERT INTO events (type, at_ms, data) VALUES (?, ?, ?)');
    this.#after = database.prepare('SELECT seq, type, at_ms, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
    this.#last = database.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'");
    this.#first = database.prepare('SELECT seq FROM events ORDER BY seq LIMIT 1');
    this.#claim = database.prepare('INSERT INTO notification_claims (event_seq, target, instance, claimed_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    const write = database.transaction((batch: PendingEvent[]) => {
      for (const pending of batch) {
        const seq = Number(this.#insert.run(pending.event.type, pending.event.at_ms, pending.event.data).lastInsertRowid);
        pending.stored = { seq, ...pending.event };
      }
    });
    this.#writer = new BatchWriter(async (batch) => {
      // 1 is NORMAL; never more durable than the connection was opened with
      const relaxed = Math.min(1, this.#synchronous);
      if (relaxed !== this.#synchronous) this.#database.pragma(`synchronous = ${relaxed}`);
      try {
        write.immediate(batch);
      } finally {
        if (relaxed !== this.#synchronous) this.#database.pragma(`synchronous = ${this.#synchronous}`);
      }
      return batch.map(() => undefined);
    });
  }

  async append(events: NewEvent[]): Promise<StoredEvent[]> {
    const pending: PendingEvent[] = events.map((event) => ({ event }));
    await Promise.all(pending.map((item) => this.#writer.append(item)));
    return pending.map((item) => item.stored!);
  }

  async after(seq: number, limit: number, types?: readonly string[]): Promise<StoredEvent[]> {
    if (types === undefined) return this.#after.all(seq, limit);
    if (types.length === 0) return [];
    return this.#typed('>', 'ASC', types.length).all(seq, ...types, limit);
  }

  async newest(seq: number, limit: number, types?: readonly string[]): Promise<StoredEvent[]> {
    if (types?.length === 0) return [];
    return this.#typed('<=', 'DESC', types?.length ?? 0).all(seq, ...(types ?? []), limit);
  }

  // the type is checked in the query, before a row's data (which may be large) is read: one statement per shape
  #typed(compare: '>' | '<=', order: 'ASC' | 'DESC', types: number): Statement<unknown[], StoredEvent> {
    const key = `${compare} ${order} ${types}`;
    let statement = this.#statements.get(key);
    if (!statement) {
      const filter = types === 0 ? '' : ` AND type IN (${Array.from({ length: types }, () => '?').join(', ')})`;
      statement = this.#database.prepare(`SELECT seq, type, at_ms, data FROM events WHERE seq ${compare} ?${filter} ORDER BY seq ${order} LIMIT ?`);
      this.#statements.set(key, statement);
    }
    return statement;
  }

  async bounds(): Promise<{ first: number; last: number }> {
    const last = this.#last.get()?.seq ?? 0;
    return { first: this.#first.get()?.seq ?? last + 1, last };
  }

  async prune(keep: number): Promise<number> {
    const last = this.#last.get()?.seq ?? 0;
    this.#database.prepare('DELETE FROM notification_claims WHERE event_seq <= ?').run(last - Math.max(0, keep));
    return this.#database.prepare('DELETE FROM events WHERE seq <= ?').run(last - Math.max(0, keep)).changes;
  }

  /**
   * One insert wins, across the processes sharing the file. It waits at most `CLAIM_PATIENCE_MS` for another process's
   * write lock, on the event loop (the store's busy timeout is seconds): past that it throws SQLITE_BUSY, and the
   * notifier delivers rather than risk no delivery. Its commit skips the fsync, as the events' do: a claim lost to a
   * power loss only lets the event be POSTed again, which `X-Hldp-Delivery` lets a receiver drop.
   */
  async claimDelivery(seq: number, target: string, by: string, atMs: number): Promise<boolean> {
    const patience = this.#database.pragma('busy_timeout', { simple: true }) as number;
    const relaxed = Math.min(1, this.#synchronous);
    this.#database.pragma(`busy_timeout = ${CLAIM_PATIENCE_MS}`);
    if (relaxed !== this.#synchronous) this.#database.pragma(`synchronous = ${relaxed}`);
    try {
      return this.#claim.run(seq, target, by, atMs).changes === 1;
    } finally {
      if (relaxed !== this.#synchronous) this.#database.pragma(`synchronous = ${this.#synchronous}`);
      this.#database.pragma(`busy_timeout = ${patience}`);
    }
  }

  /** resolves when every append so far is written */
  flush(): Promise<void> {
    return this.#writer.flush();
  }
}
