import type { RejectedCall } from '../core/index.js';
import { canonicalJson } from './canonical-params.js';
import { sinceMs } from './receipt-rows.js';
import type { RejectionQuery } from './store.js';

/** How much of a rejected call's params is kept: they may be anything a caller sent. */
export const MAX_REJECTED_PARAMS_CHARS = 8192;

/** A stored rejected call, as both stores keep it. */
export interface RejectionRow {
  id: string;
  at_ms: number;
  caller: string | null;
  session: string | null;
  tool: string;
  code: string;
  reason: string;
  params: string;
}

/** The row a record is stored as: params as JSON, or the head of their JSON with the cut counted. */
export function rejectionRow(record: RejectedCall): RejectionRow {
  const text = canonicalJson(record.params);
  const params = text.length <= MAX_REJECTED_PARAMS_CHARS ? text : JSON.stringify(`${text.slice(0, MAX_REJECTED_PARAMS_CHARS)}[… ${text.length - MAX_REJECTED_PARAMS_CHARS} chars cut of ${text.length} …]`);
  return { id: record.id, at_ms: Date.parse(record.at), caller: record.caller, session: record.session, tool: record.tool.slice(0, 512), code: record.code, reason: record.reason.slice(0, 4096), params };
}

/** A row as the record it stands for. */
export function toRejection(row: RejectionRow): RejectedCall {
  return { type: 'rejected', id: row.id, at: new Date(Number(row.at_ms)).toISOString(), caller: row.caller, session: row.session, tool: row.tool, code: row.code, reason: row.reason, params: JSON.parse(row.params) as unknown };
}

/** The SQL filters of a query (`?` placeholders) and their values, newest first, paged. */
export function rejectionFilters(query: RejectionQuery): { where: string; values: Array<string | number>; limit: number; offset: number } {
  const clauses: string[] = [];
  const values: Array<string | number> = [];
  for (const [column, value] of [['caller', query.caller], ['tool', query.tool], ['code', query.code]] as const) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    values.push(value);
  }
  if (query.since !== undefined) {
    clauses.push('at_ms >= ?');
    values.push(sinceMs(query.since));
  }
  return {
    where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '',
    values,
    limit: Math.min(1001, Math.max(1, Math.floor(query.limit ?? 50))),
    offset: Math.max(0, Math.floor(query.offset ?? 0)),
  };
}
