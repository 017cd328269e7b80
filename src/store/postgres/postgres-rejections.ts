import { rejectionFilters, rejectionRow, toRejection, type RejectionRow } from '../rejection-rows.js';
import type { RejectedCall, RejectionQuery, RejectionStore } from '../store.js';
import type { Database } from './database.js';

/** Rejected calls in PostgreSQL. */
export class PostgresRejectionStore implements RejectionStore {
  readonly #sql: Database;

  constructor(sql: Database) {
    this.#sql = sql;
  }

  async save(record: RejectedCall): Promise<void> {
    const row = rejectionRow(record);
    await this.#sql`INSERT INTO rejected_calls ${this.#sql(row, 'id', 'at_ms', 'caller', 'session', 'tool', 'code', 'reason', 'params')}`;
  }

  async list(query: RejectionQuery = {}): Promise<RejectedCall[]> {
    const { where, values, limit, offset } = rejectionFilters(query);
    let index = 0;
    const text = `SELECT id, at_ms, caller, session, tool, code, reason, params FROM rejected_calls ${where.replace(/\?/g, () => `$${++index}`)} ORDER BY at_ms DESC, seq DESC LIMIT $${++index} OFFSET $${++index}`;
    const rows = await this.#sql.unsafe<RejectionRow[]>(text, [...values, limit, offset]);
    return rows.map(toRejection);
  }
}
