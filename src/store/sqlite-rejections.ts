import type { Database, Statement } from 'better-sqlite3';
import type { RejectedCall } from '../core/index.js';
import { rejectionFilters, rejectionRow, toRejection, type RejectionRow } from './rejection-rows.js';
import { PRUNE_BATCH, pruneInBatches, retentionCutoff } from './retention.js';
import type { RejectionQuery, RejectionStore, RetentionPolicy } from './store.js';

/** Rejected calls in the `rejected_calls` table. */
export class SqliteRejectionStore implements RejectionStore {
  readonly #database: Database;
  readonly #insert: Statement;
  readonly #listings = new Map<string, Statement<Array<string | number>, RejectionRow>>();
  readonly #now: () => number;
  readonly #newest: Statement<[number], { seq: number }>;
  readonly #prune: Statement<[number, number]>;

  constructor(database: Database, options: { now: () => number }) {
    this.#database = database;
    this.#now = options.now;
    this.#insert = database.prepare('INSERT INTO rejected_calls (id, at_ms, caller, session, tool, code, reason, params) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.#newest = database.prepare('SELECT seq FROM rejected_calls ORDER BY seq DESC LIMIT 1 OFFSET ?');
    this.#prune = database.prepare(`DELETE FROM rejected_calls WHERE seq IN (SELECT seq FROM rejected_calls WHERE at_ms < ? OR seq < ? ORDER BY seq LIMIT ${PRUNE_BATCH})`);
  }

  async prune(policy: RetentionPolicy): Promise<number> {
    return pruneInBatches(() => {
      // the oldest of the newest max_rows: anything before it is beyond them
      const bound = policy.maxRows === undefined ? undefined : this.#newest.get(policy.maxRows - 1);
      return this.#prune.run(retentionCutoff(policy, this.#now()), bound?.seq ?? -1).changes;
    });
  }

  async save(record: RejectedCall): Promise<void> {
    const row = rejectionRow(record);
    this.#insert.run(row.id, row.at_ms, row.caller, row.session, row.tool, row.code, row.reason, row.params);
  }

  async list(query: RejectionQuery = {}): Promise<RejectedCall[]> {
    const { where, values, limit, offset } = rejectionFilters(query);
    const sql = `SELECT id, at_ms, caller, session, tool, code, reason, params FROM rejected_calls ${where} ORDER BY at_ms DESC, seq DESC LIMIT ? OFFSET ?`;
    let statement = this.#listings.get(sql);
    if (!statement) this.#listings.set(sql, (statement = this.#database.prepare<Array<string | number>, RejectionRow>(sql)));
    return statement.all(...values, limit, offset).map(toRejection);
  }
}
