import { BatchWriter } from '../batch-writer.js';
import type { EventLog, NewEvent, StoredEvent } from '../store.js';
import type { Database } from './database.js';

interface PendingEvent {
  event: NewEvent;
  stored?: StoredEvent;
}

/**
 * The event log in PostgreSQL. Sequence values can commit out of order, and a reader of "everything after N" would
 * then skip the late one for good: each batch takes its `seq` values under one `pg_advisory_xact_lock`, taken and let
 * go within one statement (`hldp_append_events`), so every instance's appends commit in `seq` order.
 */
export class PostgresEventLog implements EventLog {
  readonly #sql: Database;
  readonly #writer: BatchWriter<PendingEvent>;

  constructor(sql: Database) {
    this.#sql = sql;
    this.#writer = new BatchWriter(async (batch) => {
      // one statement (migration 11): the lock is let go at its commit, within the round trip, never held across
      // this process's event loop (review L, L7); seq values are taken in the batch's order, so ascending is that order
      const rows = await this.#sql<Array<{ seq: number }>>`
        SELECT seq FROM hldp_append_events(${this.#sql.array(batch.map(({ event }) => event.type))}::text[], ${this.#sql.array(batch.map(({ event }) => event.at_ms))}::bigint[], ${this.#sql.array(batch.map(({ event }) => event.data))}::text[]) AS seq`;
      const stored = rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
      batch.forEach((pending, index) => {
        pending.stored = { seq: stored[index]!, ...pending.event };
      });
      return batch.map(() => undefined);
    });
  }

  async append(events: NewEvent[]): Promise<StoredEvent[]> {
    const pending: PendingEvent[] = events.map((event) => ({ event }));
    await Promise.all(pending.map((item) => this.#writer.append(item)));
    return pending.map((item) => item.stored!);
  }

  async after(seq: number, limit: number, types?: readonly string[]): Promise<StoredEvent[]> {
    if (types === undefined) return this.#sql<StoredEvent[]>`SELECT seq, type, at_ms, data FROM events WHERE seq > ${seq} ORDER BY seq LIMIT ${limit}`;
    if (types.length === 0) return [];
    return this.#sql<StoredEvent[]>`SELECT seq, type, at_ms, data FROM events WHERE seq > ${seq} AND type = ANY(${[...types]}::text[]) ORDER BY seq LIMIT ${limit}`;
  }

  async newest(seq: number, limit: number, types?: readonly string[]): Promise<StoredEvent[]> {
    if (types === undefined) return this.#sql<StoredEvent[]>`SELECT seq, type, at_ms, data FROM events WHERE seq <= ${seq} ORDER BY seq DESC LIMIT ${limit}`;
    if (types.length === 0) return [];
    return this.#sql<StoredEvent[]>`SELECT seq, type, at_ms, data FROM events WHERE seq <= ${seq} AND type = ANY(${[...types]}::text[]) ORDER BY seq DESC LIMIT ${limit}`;
  }

  /**
   * The oldest and newest committed ids, as SQLite gives them. Not the sequence's last value: it counts an id taken by
   * an append still in flight, and a reader told to resume after that id would never get the event once it commits.
   * Appends commit in `seq` order (the lock above), so every id up to the newest committed one is committed or rolled back.
   */
  async bounds(): Promise<{ first: number; last: number }> {
    const [row] = await this.#sql<Array<{ first: number | null; last: number | null }>>`SELECT min(seq) AS first, max(seq) AS last FROM events`;
    const last = Number(row?.last ?? 0);
    return { first: row?.first === null || row?.first === undefined ? last + 1 : Number(row.first), last };
  }

  async prune(keep: number): Promise<number> {
    const { last } = await this.bounds();
    const deleted = await this.#sql`DELETE FROM events WHERE seq <= ${last - Math.max(0, keep)}`;
    await this.#sql`DELETE FROM notification_claims WHERE event_seq <= ${last - Math.max(0, keep)}`;
    return deleted.count;
  }

  async claimDelivery(seq: number, target: string, by: string, atMs: number): Promise<boolean> {
    // the primary key (event_seq, target) lets one insert win, whichever instance sent it first
    const rows = await this.#sql`INSERT INTO notification_claims (event_seq, target, instance, claimed_ms) VALUES (${seq}, ${target}, ${by}, ${atMs}) ON CONFLICT DO NOTHING RETURNING event_seq`;
    return rows.length === 1;
  }

  /** resolves when every append so far is written */
  flush(): Promise<void> {
    return this.#writer.flush();
  }
}
