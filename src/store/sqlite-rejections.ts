import type { Database, Statement } from 'better-sqlite3';
import { rejectionFilters, rejectionRow, toRejection, type RejectionRow } from './rejection-rows.js';
import type { RejectedCall, RejectionQuery, RejectionStore } from './store.js';

/** Rejected calls in the `rejected_calls` table. */
export class SqliteRejectionStore implements RejectionStore {
  readonly #database: Database;
  readonly #insert: Statement;
  readonly #listings = new Map<string, Statement<Array<string | number>, RejectionRow>>();

  constructor(database: Database) {
    this.#database = database;
    this.#insert = database.prepare('INSERT INTO rejected_calls (id, at_ms, caller, session, tool, code, reason, params) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
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
