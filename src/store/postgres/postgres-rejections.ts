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
    const row = withoutNul(rejectionRow(record));
    await this.sql`INSERT INTO rejected_calls ${this.sql(row, 'id', 'at_ms', 'caller', 'session', 'tool', 'code', 'reason', 'params')}`;
  }

  async list(query: RejectionQuery = {}): Promise<RejectedCall[]> {
    const { where, values, limit, offset } = rejectionFilters(query);
    let index = 0;
    const text = `SELECT id, at_ms, caller, session, tool, code, reason, params FROM rejected_calls ${where.replace(/\?/g, () => `$${++index}`)} ORDER BY at_ms DESC, seq DESC LIMIT $${++index} OFFSET $${++index}`;
    const rows = await this.sql.unsafe<RejectionRow[]>(text, [...values.map((value) => (typeof value === 'string' ? keepable(value) : value)), limit, offset]);
    return rows.map(toRejection);
  }
}

// PostgreSQL's text refuses U+0000, and the insert of an agent's refused call whose tool name or unknown param key held
// one failed: the record was lost (review L, L6). It is kept as its escape, as the human views show it; params are JSON.
const keepable = (text: string): string => text.replaceAll('\u0000', '\\u0000');

function withoutNul(row: RejectionRow): RejectionRow {
  return { ...row, tool: keepable(row.tool), reason: keepable(row.reason), caller: row.caller === null ? null : keepable(row.caller), session: row.session === null ? null : keepable(row.session) };
}
