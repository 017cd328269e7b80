import type { ApprovalPosition, ApprovalQuery, ApprovalRecord, Store } from '../store/index.js';
import { deciderProblem } from './approval-rules.js';
import type { Principal } from './principals.js';

// the store's page when a list is filtered per record: small, since each request holds its params (up to a body's size)
const LIST_PAGE = 50;

/** Whether `principal` may read this request: its caller, an admin, or one its rule lets decide. The one rule of list, get, decide and the console. */
export function maySeeApproval(record: ApprovalRecord, principal: Principal): boolean {
  return record.caller === principal.name || principal.roles.has('admin') || deciderProblem({ caller: '', selfApproval: false, approvers: record.rule.approvers }, principal) === undefined;
}

/**
 * The requests `principal` may see, newest first, `offset` and `limit` counted over those, ending early
 * (`ended_early`) once the requests' params read would pass `maxBytes` (the first request always comes). The store is
 * read 50 requests at a time, for an admin too, so no more than a store page beyond the budget is ever held.
 */
export async function approvalPage(store: Store, query: ApprovalQuery, principal: Principal, maxBytes: number): Promise<{ records: ApprovalRecord[]; ended_early: boolean }> {
  // the store judges what the principal may see and skips `offset` of those in its query: a page reads the rows it
  // returns and at most a store page more, however much history is skipped or hidden (review J F1)
  const limit = query.limit ?? 50;
  const visibleTo = { name: principal.name, roles: [...principal.roles] };
  let bytes = 0;
  const records: ApprovalRecord[] = [];
  // `offset` (or `before`) places the first store page; each next one starts after the last row read, a keyset
  let from: Pick<ApprovalQuery, 'offset' | 'before'> = { offset: query.offset ?? 0, ...(query.before ? { before: query.before } : {}) };
  for (;;) {
    const page = await store.approvals.list({ ...query, ...from, visibleTo, limit: LIST_PAGE });
    const last = page.at(-1);
    if (last) from = { offset: 0, before: approvalPosition(last) };
    for (const record of page) {
      // the one rule stays maySee: the query's judgement only spares reading what it would refuse
      if (!maySeeApproval(record, principal)) continue;
      bytes += JSON.stringify(record.params).length;
      if (records.length > 0 && bytes > maxBytes) return { records, ended_early: true };
      if (records.push(record) >= limit) return { records, ended_early: false };
    }
    if (page.length < LIST_PAGE) return { records, ended_early: false };
  }
}

/** Where a request stands in the newest-first listing: what the next page's keyset starts after. */
export function approvalPosition(record: ApprovalRecord): ApprovalPosition {
  return { createdMs: Date.parse(record.created_at), id: record.id };
}
