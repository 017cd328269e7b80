import type { ApprovalDecision, ConsoleBackend, ConsolePrincipal, PendingApproval } from '../console/index.js';
import { changedSince, readsPlaces, type Principal } from '../policy/index.js';
import type { ApprovalRecord } from '../store/index.js';
import type { OversightGateway } from './oversight-gateway.js';

/** A stored request as the console's approvals view lists it: its params as the API and receipts show them, without any configured secret. */
function pendingOf(record: ApprovalRecord, gateway: OversightGateway, viewer: Principal): Omit<PendingApproval, 'decidable'> {
  // marked: its call runs at the gateway that filed it, not here (approving records the decision), or, filed by this
  // very gateway under settings it no longer has, at none that this one knows of (review userZ4, F3, F15); the
  // settings' values and the filing instance are an admin's to read (review Z3, Z3-4)
  const elsewhere = gateway.approvals.elsewhere(record, viewer);
  // marked before anyone clicks: approving an outdated request only cancels it (review userX, X3); one that runs
  // elsewhere is judged there, by that gateway's registry, and approving it here records the decision (review Z5, Z5-10)
  const { index, matcher } = gateway.registry;
  const found = matcher.lookup(record.tool);
  const outdated = elsewhere !== undefined && !elsewhere.stranded ? undefined : changedSince(record, index, found.found ? found.tool : undefined);
  // never a link to the page itself: a gateway restarted with other settings serves the URL it filed the request at
  const filedAt = elsewhere?.stranded || !readsPlaces(viewer) ? undefined : linkable(record.rule.filed_by?.url);
  const held = gateway.secretsHeld(record.params);
  return {
    ...(held.length > 0 ? { secrets_held: held } : {}),
    ...(outdated ? { outdated } : {}), ...(elsewhere ? { elsewhere: elsewhere.text, ...(elsewhere.stranded ? { stranded: true } : {}), ...(elsewhere.gone ? { gone: true } : {}), ...(elsewhere.ended ? { ended: true } : {}) } : {}), ...(filedAt ? { filed_at: filedAt } : {}),
    id: record.id, kind: record.rule.self_approval ? 'confirmation' : 'approval', tool: record.tool, params: gateway.shownParams(record.params), commit: record.commit,
    created_at: record.created_at, expires_at: record.expires_at, caller: record.caller, ...(record.session ? { session: record.session } : {}), reason: record.rule.reason,
  };
}

/**
 * A filing instance's URL as the console links it, or undefined: only an http or https URL, as the URL parser reads
 * it (a store row is not trusted: `javascript:` or `data:` never becomes a link), without a trailing slash
 * (review Z3, Z3-5).
 */
function linkable(url: string | null | undefined): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && !parsed.username && !parsed.password ? parsed.href.replace(/\/+$/, '') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The console's approvals over the gateway's approval requests (shared by every instance through the store): the
 * pending ones the signed-in principal may see, each saying whether it may decide it, and decisions made as the signed-in principal,
 * under the same rules as `POST /v1/approvals/:id/approve|deny` (self-approval only where the rule allows it; the
 * call runs once, for the principal who asked).
 */
export function consoleApprovals(gateway: OversightGateway): ConsoleBackend['approvals'] {
  const decide = async (id: string, by: ConsolePrincipal, reason: string, verdict: 'approve' | 'deny'): Promise<ApprovalDecision> => {
    const answer = await gateway.decide(id, gateway.principal(by.name), verdict, { reason: reason === '' ? null : reason });
    if (!answer.ok) return { ok: false, status: answer.code === 'APPROVAL_NOT_FOUND' ? 404 : answer.code === 'APPROVAL_FORBIDDEN' ? 403 : 409, message: answer.error, ...(answer.code === 'APPROVAL_MISMATCH' ? { pending: true } : {}) };
    if (answer.runs_elsewhere) return { ok: true, message: answer.runs_elsewhere.message };
    const ran = verdict === 'approve' ? `'${answer.approval.tool}' ran` : `'${answer.approval.tool}' will not run`;
    return { ok: true, ...(answer.receipt && verdict === 'approve' ? { receipt: answer.receipt } : {}), message: `${verdict === 'approve' ? 'approved' : 'denied'} by ${by.name}: ${ran}` };
  };
  return {
    pending: async (viewer, page) => {
      // the requests the viewer may see, and which it may decide, by the desk's own rules (as the API lists and decides them)
      const principal = gateway.principal(viewer.name);
      const records = await gateway.approvals.list({ status: 'pending', limit: page.limit, offset: page.offset }, principal);
      return records.map((record) => ({ ...pendingOf(record, gateway, principal), decidable: gateway.approvals.deciderProblem(record, principal) === undefined }));
    },
    request: async (id, viewer) => {
      const principal = gateway.principal(viewer.name);
      const record = await gateway.approvals.get(id, principal);
      return record?.status === 'pending' ? { ...pendingOf(record, gateway, principal), decidable: gateway.approvals.deciderProblem(record, principal) === undefined } : undefined;
    },
    record: async (id, viewer) => {
      // read as GET /v1/approvals/:id reads it: a request the viewer may not read is none
      const record = await gateway.approvals.get(id, gateway.principal(viewer.name));
      return record && {
        id: record.id, status: record.status, tool: record.tool, caller: record.caller, rule: { where: record.rule.where, reason: record.rule.reason },
        timeout_ms: record.timeout_ms, created_at: record.created_at, expires_at: record.expires_at, receipt_id: record.receipt_id,
        decision: record.status === 'pending' ? null : { by: record.decided_by, via: record.decided_via, at: record.decided_at, reason: record.decision_reason },
      };
    },
    approve: (id, by, reason) => decide(id, by, reason, 'approve'),
    deny: (id, by, reason) => decide(id, by, reason, 'deny'),
  };
}
