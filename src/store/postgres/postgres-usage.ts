import type { UsageEvent } from '../../core/index.js';
import { LARGEST_USAGE_PAGE, USAGE_EVENTS_KEPT, USAGE_TRIM_EVERY, usageSince } from '../sqlite-usage.js';
import type { UsageLog, UsageQuery } from '../store.js';
import type { Database } from './database.js';

/** Usage events in PostgreSQL: every instance records its sessions' matches and calls in one table. */
export class PostgresUsageLog implements UsageLog {
  readonly #sql: Database;
  #recorded = 0;

  constructor(sql: Database) {
    this.#sql = sql;
  }

  async record(event: UsageEvent): Promise<void> {
    const at = Date.parse(event.at);
    if (Number.isNaN(at)) throw new TypeError(`usage event of session ${event.session} has no valid time`);
    await this.#sql`INSERT INTO usage_events (session, kind, at_ms, body) VALUES (${event.session}, ${event.kind}, ${at}, ${JSON.stringify(event)})`;
    // every instance trims now and then; bigserial leaves gaps, so at most KEPT stay (fewer after gaps)
    if (this.#recorded++ % USAGE_TRIM_EVERY === 0) await this.#sql`DELETE FROM usage_events WHERE seq <= (SELECT MAX(seq) FROM usage_events) - ${USAGE_EVENTS_KEPT}`;
  }

  async list(query: UsageQuery = {}): Promise<UsageEvent[]> {
    const since = usageSince(query);
    const limit = Math.min(LARGEST_USAGE_PAGE, Math.max(1, query.limit ?? LARGEST_USAGE_PAGE));
    const rows = await this.#sql<Array<{ body: string }>>`SELECT body FROM usage_events WHERE at_ms >= ${since} ORDER BY at_ms, seq LIMIT ${limit}`;
    return rows.map((row) => JSON.parse(row.body) as UsageEvent);
  }
}
