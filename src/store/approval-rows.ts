import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson, hashParams } from './canonical-params.js';
import type { ApprovalQuery, ApprovalRecord, ApprovalStatus, ApprovalTerms, NewApproval } from './approval-store.js';

/** A stored approval request, as both stores keep it. */
export interface ApprovalRow {
  id: string;
  status: string;
  caller: string;
  session: string | null;
  tool: string;
  method: string;
  executor: string;
  params: string;
  params_hash: string;
  commit_id: string;
  rule: string;
  timeout_ms: number | null;
  token_hash: string | null;
  created_ms: number;
  expires_ms: number;
  decided_ms: number | null;
  decided_by: string | null;
  decision_reason: string | null;
  decided_via: string | null;
  receipt_id: string | null;
  run_by: string | null;
  run_lease_ms: number | null;
  /** `callKey` of a request filed once per call (`ApprovalStore.file`); null for one filed by `create`, and before schema step 17 */
  call_key: string | null;
}

/** The columns of `approvals`, in the order both stores write them. */
export const APPROVAL_COLUMNS = 'id, status, caller, session, tool, method, executor, params, params_hash, commit_id, rule, timeout_ms, token_hash, created_ms, expires_ms, decided_ms, decided_by, decision_reason, decided_via, receipt_id, run_by, run_lease_ms, call_key';

/** Schema step 12, the same text on both stores: an approved call's runner and lease, and the lapsed runs found by an index. */
export const APPROVAL_RUN_LEASES = `ALTER TABLE approvals ADD COLUMN run_by text;
     ALTER TABLE approvals ADD COLUMN run_lease_ms bigint;
     UPDATE approvals SET run_by = 'a gateway of an earlier version', run_lease_ms = decided_ms + coalesce(timeout_ms, 30000) + 60000
       WHERE status = 'approved' AND receipt_id IS NULL AND decided_ms IS NOT NULL;
     CREATE INDEX approvals_running_by_lease ON approvals (run_lease_ms) WHERE status = 'approved' AND receipt_id IS NULL;`;

/**
 * Schema step 17, the same text on both stores: at most one pending request per call (`callKey`), so that a call
 * repeated while its request waits (a retrying HTTP client, a model that repeats itself) is answered with that request,
 * not filed again, by any number of instances at once (review userZ9, U9-8).
 */
export const APPROVAL_CALL_KEYS = `ALTER TABLE approvals ADD COLUMN call_key text;
     CREATE UNIQUE INDEX approvals_pending_by_call ON approvals (call_key) WHERE status = 'pending';`;

/**
 * What makes two requests the same call waiting for the same decision: the caller and session, the tool and its params
 * (their digest), what the policy judged them against (the definition's and the policies' ids, else the commit), the
 * rule that asked for a person, where the call runs and its deadline. Not who filed it nor when: another instance with
 * the same settings runs it alike.
 */
export function callKey(request: NewApproval): string {
  const { caller, session, tool, params, commit, rule, timeoutMs } = request;
  const binding = {
    caller, session, tool, params: hashParams(params), judged: rule.judged ?? commit, timeout_ms: timeoutMs ?? null, place: rule.place ?? null,
    rule: { where: rule.where, reason: rule.reason, self_approval: rule.self_approval, approvers: rule.approvers, elicit: rule.elicit },
  };
  return createHash('sha256').update(canonicalJson(binding)).digest('hex');
}

/**
 * Schema step 15, the same text on both stores: one row per serving process (`instance`: its host, pid and instance,
 * as a request's `rule.filed_by.by` names it), renewed while it serves, with where it runs calls.
 */
export const GATEWAY_INSTANCES = `CREATE TABLE gateway_instances (instance text PRIMARY KEY, place text NOT NULL, seen_ms bigint NOT NULL);
     CREATE INDEX gateway_instances_by_seen ON gateway_instances (seen_ms);`;

/**
 * Schema step 16, the same text on both stores: a row of the roll is marked when its process stops, not deleted, so that
 * an instance that does not see a filer's row can tell "it left" from "not seen yet" (review Z12, Z12-8).
 */
export const GATEWAY_INSTANCES_LEFT = 'ALTER TABLE gateway_instances ADD COLUMN left_ms bigint;';

/**
 * Which rows of the roll a beat removes, given the store's way of reading `rule.filed_by.by` from a request's `rule`
 * and the time before which a row was last renewed: those quiet since then, unless a pending request names the row's
 * process as its filer. A request waits up to its `expires_in_ms` (7 days at most), and once its filer's row was gone an
 * approver elsewhere was offered "Approve — it runs at the gateway that filed it" as if that filer were merely not seen
 * yet, though no process would run it (review Z14, Z14-6). So the row stays, marked left or quiet, until the request is
 * decided or expires.
 */
export function pruneRoll(filerOfRule: string, before: string): string {
  return `DELETE FROM gateway_instances WHERE seen_ms < ${before}
       AND NOT EXISTS (SELECT 1 FROM approvals WHERE status = 'pending' AND ${filerOfRule} = gateway_instances.instance)`;
}

/** A fresh request id: not a secret (approvers see it in the queue), but not guessable either. */
export const newApprovalId = (): string => `apr_${randomBytes(12).toString('base64url')}`;

/** The row a new request is stored as. */
export function approvalRow(request: NewApproval, now: number, key: string | null = null): ApprovalRow {
  return {
    id: newApprovalId(),
    status: 'pending',
    caller: request.caller,
    session: request.session,
    tool: request.tool,
    method: request.method,
    executor: request.executor,
    params: canonicalJson(request.params),
    params_hash: hashParams(request.params),
    commit_id: request.commit,
    rule: JSON.stringify(request.rule),
    timeout_ms: request.timeoutMs ?? null,
    token_hash: request.tokenHash ?? null,
    created_ms: now,
    expires_ms: now + request.ttlMs,
    decided_ms: null,
    decided_by: null,
    decision_reason: null,
    decided_via: null,
    receipt_id: null,
    run_by: null,
    run_lease_ms: null,
    call_key: key,
  };
}

/** A row as the request it stands for. */
export function toApproval(row: ApprovalRow): ApprovalRecord {
  const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: row.id,
    status: row.status as ApprovalStatus,
    caller: row.caller,
    session: row.session,
    tool: row.tool,
    method: row.method,
    executor: row.executor as ApprovalRecord['executor'],
    params: JSON.parse(row.params) as Record<string, unknown>,
    params_hash: row.params_hash,
    commit: row.commit_id,
    rule: JSON.parse(row.rule) as ApprovalTerms,
    timeout_ms: row.timeout_ms,
    created_at: new Date(row.created_ms).toISOString(),
    expires_at: new Date(row.expires_ms).toISOString(),
    decided_at: iso(row.decided_ms),
    decided_by: row.decided_by,
    decision_reason: row.decision_reason,
    decided_via: row.decided_via as ApprovalRecord['decided_via'],
    receipt_id: row.receipt_id,
    run: row.run_by === null || row.run_lease_ms === null ? null : { by: row.run_by, lease_until: new Date(Number(row.run_lease_ms)).toISOString() },
  };
}

/** The SQL filters of a query (`?` placeholders) and their values, newest first, paged. */
export function approvalFilters(query: ApprovalQuery, dialect: 'sqlite' | 'postgres'): { where: string; values: Array<string | number>; limit: number; offset: number } {
  const clauses: string[] = [];
  const values: Array<string | number> = [];
  for (const [column, value] of [['status', query.status], ['caller', query.caller], ['tool', query.tool]] as const) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    values.push(value);
  }
  if (query.before) {
    // (created_ms, id) < before, spelt so that its first part is a range of the indexes that lead with created_ms
    clauses.push('created_ms <= ? AND (created_ms < ? OR id < ?)');
    values.push(query.before.createdMs, query.before.createdMs, query.before.id);
  }
  const visible = query.visibleTo && visibility(query.visibleTo, dialect);
  if (visible) {
    clauses.push(visible.clause);
    values.push(...visible.values);
  }
  return {
    where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '',
    values,
    limit: Math.min(1001, Math.max(1, Math.floor(query.limit ?? 50))),
    offset: Math.max(0, Math.floor(query.offset ?? 0)),
  };
}

/**
 * `maySeeApproval` (policy/approval-page.ts) in SQL: the caller's own, or a rule whose approvers gate (`passesGate`) lets the
 * principal in — no gate at all, its name listed, or one of its roles listed. Undefined for an admin: it reads every one.
 */
function visibility(principal: { name: string; roles: readonly string[] }, dialect: 'sqlite' | 'postgres'): { clause: string; values: string[] } | undefined {
  if (principal.roles.includes('admin')) return undefined;
  const list = (name: 'roles' | 'principals'): string =>
    dialect === 'sqlite' ? `json_each(rule, '$.approvers.${name}')` : `jsonb_array_elements_text(rule::jsonb #> '{approvers,${name}}') AS listed(value)`;
  const gate = (name: 'roles' | 'principals'): string => (dialect === 'sqlite' ? `json_type(rule, '$.approvers.${name}')` : `(rule::jsonb #> '{approvers,${name}}')`);
  const parts = [
    'caller = ?',
    `(${gate('roles')} IS NULL AND ${gate('principals')} IS NULL)`,
    `EXISTS (SELECT 1 FROM ${list('principals')} WHERE value = ?)`,
  ];
  const values = [principal.name, principal.name];
  if (principal.roles.length > 0) {
    parts.push(`EXISTS (SELECT 1 FROM ${list('roles')} WHERE value IN (${principal.roles.map(() => '?').join(', ')}))`);
    values.push(...principal.roles);
  }
  return { clause: `(${parts.join(' OR ')})`, values };
}
