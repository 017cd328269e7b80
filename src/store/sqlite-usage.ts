import type { Database, Statement } from 'better-sqlite3';
import type { UsageEvent } from '../core/index.js';
import type { UsageLog, UsageQuery } from './store.js';

/** The most events one `list` returns, in either store. */
export const LARGEST_USAGE_PAGE = 100_000;

/** Each store instance trims the log on its first record and then every this many. */
export const USAGE_TRIM_EVERY = 1_000;

/**
 * The log keeps about the newest this many events, so it cannot grow without bound; below the largest page by ten
 * instances' worth of records between trims, so that a `list` without `since` still reads all of it.
 */
export const USAGE_EVENTS_KEPT = LARGEST_USAGE_PAGE - 10 * USAGE_TRIM_EVERY;

/** A query's `since` in ms since the epoch (0 without one); throws on a time that is none. */
export function usageSince(query: UsageQuery): number {
  if (query.since === undefined) return 0;
  const since = (query.since instanceof Date ? query.since : new Date(query.since)).getTime();
  if (Number.isNaN(since)) throw new TypeError(`'since' must be an ISO date or time, got '${String(query.since)}'`);
  return since;
}

/** Usage events in the `usage_events` table: the time to filter on, the whole event as JSON. */
export class SqliteUsageLog implements UsageLog {
  readonly #insert: Statement;
  readonly #list: Statement<[number, number], { body: string }>;
  readonly #trim: Statement;
  #recorded = 0;

  constructor(database: Database) {
    this.#insert = database.prepare('INSERT INTO usage_events (session, kind, at_ms, body) VALUES (?, ?, ?, ?)');
    this.#list = database.prepare('SELECT body FROM usage_events WHERE at_ms >= ? ORDER BY at_ms, seq LIMIT ?');
    // seq only grows (AUTOINCREMENT): everything more than KEPT below the newest goes
    this.#trim = database.prepare('DELETE FROM usage_events WHERE seq <= (SELECT MAX(seq) FROM usage_events) - ?');
  }

  async record(event: UsageEvent): Promise<void> {
    const at = Date.parse(event.at);
    if (Number.isNaN(at)) throw new TypeError(`usage event of session ${event.session} has no valid time`);
    this.#insert.run(event.session, event.kind, at, JSON.stringify(event));
    if (this.#recorded++ % USAGE_TRIM_EVERY === 0) this.#trim.run(USAGE_EVENTS_KEPT);
  }

  async list(query: UsageQuery = {}): Promise<UsageEvent[]> {
    const limit = Math.min(LARGEST_USAGE_PAGE, Math.max(1, query.limit ?? LARGEST_USAGE_PAGE));
    return this.#list.all(usageSince(query), limit).map((row) => JSON.parse(row.body) as UsageEvent);
  }
}
