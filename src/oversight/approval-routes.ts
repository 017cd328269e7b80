import express, { type RequestHandler, type Response, type Router } from 'express';
import type { ApprovalRecord, ApprovalStatus } from '../store/index.js';
import { takeWaitSlot, tooManyWaits } from './approval-waits.js';
import { rejectionsTool, type OversightGateway } from './oversight-gateway.js';
import { MAX_APPROVAL_WAIT_SECONDS } from '../export/index.js';
import { approvalPosition, approvalSeenBy, receiptSeenBy, type ApprovalAnswer, type Principal } from '../policy/index.js';
import { REJECTION_CODES } from '../openapi/index.js';
import { holdForReader, LONG_TEXT_UNITS, receiptReadsOf, type ReceiptReads } from '../http-edge/index.js';
import { approvalCursor, readApprovalCursor } from './approval-cursor.js';
import { integerParameter, principalOf, validateBody } from '../request-checks/index.js';

const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired', 'cancelled'];
// `all` (as `hldp approvals list --status all`) is every status, as omitting it is: the API refused what the CLI took (review userZ4, F11)
const STATUS_WORDS: readonly string[] = [...STATUSES, 'all'];
/** The longest a caller may hold `GET /v1/approvals/:id?wait=` open, in seconds (as `approval_wait` over MCP). */
export const MAX_WAIT_SECONDS = MAX_APPROVAL_WAIT_SECONDS;

const REFUSAL_STATUS: Record<Extract<ApprovalAnswer, { ok: false }>['code'], number> = {
  APPROVAL_NOT_FOUND: 404,
  APPROVAL_FORBIDDEN: 403,
  APPROVAL_DECIDED: 409,
  APPROVAL_EXPIRED: 409,
  APPROVAL_MISMATCH: 409,
  APPROVAL_OUTDATED: 409,
  TIMEOUT_NOT_ALLOWED: 422,
  STORE_UNAVAILABLE: 503,
};

/** How much of the requests' params (their JSON) one page of `GET /v1/approvals` holds at most: past it the page ends early. */
export const APPROVAL_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * Approval requests and rejected calls: the queue (`GET /v1/approvals?status=pending`), one request (long-polled
 * with `?wait=`), `approve`, `deny` and `cancel`; `GET /v1/rejections` lists calls refused before they could run.
 */
export function approvalRouter(gateway: OversightGateway, options: { maxBodyBytes: number; receiptReads?: ReceiptReads }): Router {
  const router = express.Router();
  const receiptReads = options.receiptReads ?? receiptReadsOf(gateway);
  const parse = express.json({ limit: options.maxBodyBytes, strict: false });
  const check = validateBody('ApprovalDecisionRequest');
  // the body is optional: a bare POST approves (or denies) without a reason
  const json: RequestHandler[] = [parse, (request, response, next) => (request.get('content-type') === undefined && request.body === undefined ? ((request.body = {}), next()) : check(request, response, next))];
  // params shown to approvers keep no secret of the gateway's either: the one redaction receipts and events apply; and
  // where instances run calls (rule.place, rule.filed_by) is an admin's to read (review Z3, Z3-4)
  const shown = (record: ApprovalRecord, reader: Principal): ApprovalRecord => ({ ...approvalSeenBy(record, reader), params: gateway.shownParams(record.params) });

  router.get('/v1/approvals', async (request, response) => {
    const query = request.query as Record<string, unknown>;
    const status = query['status'] === 'all' ? undefined : query['status'];
    const limit = integerParameter('limit', stringOf(query['limit']), 50, 1, 1000);
    const offset = integerParameter('offset', stringOf(query['offset']), 0, 0, Number.MAX_SAFE_INTEGER);
    const given = stringOf(query['cursor']);
    const cursor = given === undefined ? undefined : readApprovalCursor(given);
    const problem = status !== undefined && !STATUSES.includes(status as ApprovalStatus) ? `'status' must be one of ${STATUS_WORDS.join(', ')}`
      : typeof limit === 'string' ? limit : typeof offset === 'string' ? offset : typeof cursor === 'string' ? cursor
      : cursor !== undefined && query['offset'] !== undefined ? "give 'cursor' or 'offset', not both: page on with next_cursor alone" : undefined;
    if (problem !== undefined || typeof limit === 'string' || typeof offset === 'string' || typeof cursor === 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: problem });
      return;
    }
    // at most about APPROVAL_PAGE_BYTES of params read, parsed and sent, whatever the requests hold (found in review)
    const page = await gateway.approvals.page({
      ...(status ? { status: status as ApprovalStatus } : {}), ...(stringOf(query['caller']) ? { caller: stringOf(query['caller'])! } : {}),
      ...(stringOf(query['tool']) ? { tool: stringOf(query['tool'])! } : {}), limit: limit + 1, ...(cursor ? { before: cursor } : { offset }),
    }, principalOf(response), APPROVAL_PAGE_BYTES);
    const approvals = page.records.slice(0, limit);
    const more = page.ended_early || page.records.length > limit;
    // a cursor continues after the last request shown, whatever was filed or deleted since; offset counts from the newest now
    const next = more && approvals.length > 0 ? approvalCursor(approvalPosition(approvals.at(-1)!)) : null;
    const paging = cursor ? { cursor: given, next_cursor: next } : { offset, next_offset: more ? offset + approvals.length : null, next_cursor: next };
    const reader = principalOf(response);
    response.json({ approvals: approvals.map((record) => shown(record, reader)), limit, ...paging, ...(page.ended_early ? { ended_early: true } : {}), max_bytes: APPROVAL_PAGE_BYTES });
  });

  router.get('/v1/approvals/:id', async (request, response) => {
    const wait = integerParameter('wait', stringOf(request.query['wait']), 0, 0, MAX_WAIT_SECONDS);
    if (typeof wait === 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: wait });
      return;
    }
    const principal = principalOf(response);
    const id = request.params.id;
    if (!(await gateway.approvals.get(id, principal))) {
      response.status(404).json({ code: 'APPROVAL_NOT_FOUND', error: `no approval request '${id}' that '${principal.name}' may see; list them with GET /v1/approvals` });
      return;
    }
    // each wait polls the store 4 times a second: an agent holds at most MAX_WAITS_PER_AGENT at once, these and its
    // approval_wait calls over MCP together (admins and approvers are not counted)
    const release = wait > 0 ? takeWaitSlot(gateway, principal) : () => undefined;
    if (!release) {
      response.status(429).json({ code: 'TOO_MANY_WAITS', error: tooManyWaits(principal) });
      return;
    }
    // the caller that hangs up stops the wait
    const gone = new AbortController();
    response.on('close', () => {
      gone.abort();
      release();
    });
    const state = await gateway.hold(gateway.approvals.wait(id, wait * 1000, gone.signal));
    if (gone.signal.aborted) return;
    if (!state) response.status(404).json({ code: 'APPROVAL_NOT_FOUND', error: `no approval request '${id}'` });
    else {
      // a decided request's receipt is held until its client has read it, counted with the receipts' routes (review X, X3)
      const characters = state.receipt ? state.receipt.output.length + (state.receipt.stderr?.length ?? 0) + (state.receipt.error?.length ?? 0) : 0;
      if (!holdForReader(receiptReads, response, principal.name, characters, 'GET /v1/approvals/:id', LONG_TEXT_UNITS)) return;
      response.json({ approval: shown(state.approval, principal), receipt: state.receipt && receiptSeenBy(state.receipt, principal) });
    }
  });

  for (const verdict of ['approve', 'deny'] as const) {
    router.post(`/v1/approvals/:id/${verdict}`, ...json, async (request, response) => {
      const body = request.body as { reason?: string; params?: Record<string, unknown>; timeout_ms?: number };
      const answer = await gateway.decide(String(request.params['id']), principalOf(response), verdict, {
        reason: body.reason ?? null, ...(body.params ? { params: body.params } : {}), ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }),
      });
      sendAnswer(response, answer, (record) => shown(record, principalOf(response)));
    });
  }

  router.post('/v1/approvals/:id/cancel', ...json, async (request, response) => {
    const body = request.body as { reason?: string };
    sendAnswer(response, await gateway.cancelApproval(String(request.params['id']), principalOf(response), body.reason ?? null), (record) => shown(record, principalOf(response)));
  });

  router.get('/v1/rejections', async (request, response) => {
    const query = request.query as Record<string, unknown>;
    const limit = integerParameter('limit', stringOf(query['limit']), 50, 1, 1000);
    const offset = integerParameter('offset', stringOf(query['offset']), 0, 0, Number.MAX_SAFE_INTEGER);
    const since = stringOf(query['since']);
    const code = stringOf(query['code']);
    // a code no rejection is recorded with would read as "nothing was refused" (review userU, F9)
    const problem = since !== undefined && Number.isNaN(Date.parse(since)) ? "'since' must be an ISO date or time"
      : code !== undefined && code !== '' && !(REJECTION_CODES as readonly string[]).includes(code) ? `'code' must be one of ${REJECTION_CODES.join(', ')}, got '${code.slice(0, 40)}'`
      : typeof limit === 'string' ? limit : typeof offset === 'string' ? offset : undefined;
    if (problem !== undefined || typeof limit === 'string' || typeof offset === 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: problem });
      return;
    }
    const principal = principalOf(response);
    // everyone sees what was refused to them; approvers and admins see every caller's
    const everyone = principal.roles.has('admin') || principal.roles.has('approver');
    const caller = everyone ? stringOf(query['caller']) : principal.name;
    const page = await gateway.store.rejections.list({
      ...(caller !== undefined ? { caller } : {}), ...(stringOf(query['tool']) ? { tool: rejectionsTool(gateway, stringOf(query['tool'])!) } : {}),
      ...(code ? { code } : {}), ...(since !== undefined ? { since } : {}), limit: limit + 1, offset,
    });
    response.json({ rejections: page.slice(0, limit), limit, offset, next_offset: page.length > limit ? offset + limit : null });
  });
  return router;
}

function sendAnswer(response: Response, answer: ApprovalAnswer, shown: (record: ApprovalRecord) => ApprovalRecord): void {
  if (answer.ok && answer.runs_elsewhere) {
    // approved at an instance that runs calls elsewhere: decided, nothing ran yet; it runs at the gateway that filed it (review userZ4, F3)
    response.status(202).json({ approval: shown(answer.approval), receipt: null, filed_by: answer.runs_elsewhere.filed_by, message: answer.runs_elsewhere.message });
    return;
  }
  if (answer.ok) {
    // a run whose lease lapsed: the request shown is resolved by another receipt than this run's, and the answer says so
    response.json({ approval: shown(answer.approval), receipt: answer.receipt && receiptSeenBy(answer.receipt, principalOf(response)), ...(answer.lease_lapsed ? { lease_lapsed: answer.lease_lapsed } : {}) });
    return;
  }
  const { ok: _ok, approval, ...rest } = answer;
  response.status(REFUSAL_STATUS[answer.code]).json({ ...rest, ...(rest.receipt ? { receipt: receiptSeenBy(rest.receipt, principalOf(response)) } : {}), ...(approval ? { approval: shown(approval) } : {}) });
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
