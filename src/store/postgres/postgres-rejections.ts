import type { RejectedCall } from '../../core/index.js';
import { rejectionFilters, rejectionRow, toRejection, type RejectionRow } from '../rejection-rows.js';
import { PRUNE_BATCH, pruneInBatches, retentionCutoff } from '../retention.js';
import type { RejectionQuery, RejectionStore, RetentionPolicy } from '../store.js';
import { PostgresTable } from './postgres-table.js';

/** Rejected calls in PostgreSQL. */
export class PostgresRejectionStore extends PostgresTable implements RejectionStore {
  async prune(policy: RetentionPolicy): Promise<number> {
    return pruneInBatches(async () => {
      // the oldest of the newest max_rows (in one statement, so that instances pruning at once agree on it)
      const bound = policy.maxRows === undefined ? this.sql`-1` : this.sql`COALESCE((SELECT seq FROM rejected_calls ORDER BY seq DESC LIMIT 1 OFFSET ${policy.maxRows - 1}), -1)`;
      const result = await this.sql`
        DELETE FROM rejected_calls WHERE seq IN (
          SELECT seq FROM rejected_calls WHERE at_ms < ${retentionCutoff(policy, this.now())} OR seq < ${bound} ORDER BY seq LIMIT ${PRUNE_BATCH})`;
      return result.count;
    });
  }

  async save(record: RejectedCall): Promise<void> {
    const row = rejectionRow(record);
    await this.sql`INSERT INTO rejected_calls ${this.sql(row, 'id', 'at_ms', 'caller', 'session', 'tool', 'code', 'reason', 'params')}`;
  }

  async list(query: RejectionQuery = {}): Promise<RejectedCall[]> {
    const { where, values, limit, offset } = rejectionFilters(query);
    let index = 0;
    const text = `SELECT id, at_ms, caller, session, tool, code, reason, params FROM rejected_calls ${where.replace(/\?/g, () => `$${++index}`)} ORDER BY at_ms DESC, seq DESC LIMIT $${++index} OFFSET $${++index}`;
    const rows = await this.sql.unsafe<RejectionRow[]>(text, [...values, limit, offset]);
    return rows.map(toRejection);
  }
}
