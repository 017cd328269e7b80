import type { Receipt } from '../core/index.js';
import type { ApprovalRecord } from '../store/index.js';
import { detail, summary } from './approval-lines.js';
import { writeJson, writeLines, type CommandIo } from './command.js';
import { terminalSafe } from './terminal-safe.js';

/** What `hldp approvals … --url` asks a running gateway, as whom. */
export interface ApprovalsOverHttp {
  url: string;
  token: string | undefined;
  action: 'list' | 'show' | 'approve' | 'deny' | 'cancel';
  id: string | undefined;
  status: string;
  limit: number;
  wait: number;
  reason: string | null;
  json: boolean;
}

type Answer = { status: number; body: Record<string, unknown> } | { unreachable: string };

/**
 * `hldp approvals … --url URL`: the queue of a running gateway over its HTTP API (`GET /v1/approvals`,
 * `GET /v1/approvals/:id`, `POST /v1/approvals/:id/approve|deny|cancel`), with the principal's own token: an approver who
 * is no operator needs neither the gateway's config nor its store (review userZ6, F4(c)). The gateway decides, and an
 * approved call runs there, never in this process. Exit 0 as the local command's, 1 when refused or the call failed, 2
 * when the gateway cannot be reached or does not answer as one.
 */
export async function approvalsOverHttp(ask: ApprovalsOverHttp, io: CommandIo): Promise<number> {
  const base = ask.url.replace(/\/+$/, '');
  const at = (path: string): string => `${base}${path}`;
  const id = encodeURIComponent(ask.id ?? '');
  const answer = ask.action === 'list'
    ? await request(at(`/v1/approvals?${new URLSearchParams({ status: ask.status, limit: String(ask.limit) })}`), 'GET', ask.token)
    : ask.action === 'show'
      ? await request(at(`/v1/approvals/${id}${ask.wait > 0 ? `?wait=${ask.wait}` : ''}`), 'GET', ask.token)
      : await request(at(`/v1/approvals/${id}/${ask.action}`), 'POST', ask.token, ask.reason === null ? {} : { reason: ask.reason });
  if ('unreachable' in answer) {
    io.stderr.write(`hldp: ${terminalSafe(answer.unreachable)}\n`);
    return 2;
  }
  const { status, body } = answer;
  if (status >= 400) {
    if (ask.json) writeJson(io, body);
    const code = typeof body['code'] === 'string' ? body['code'] : `HTTP ${status}`;
    io.stderr.write(`${terminalSafe(`${code}: ${String(body['error'] ?? body['message'] ?? '')}`)}\n`);
    // a token the gateway does not take is the command's to fix, as a missing token is
    return status === 401 ? 2 : 1;
  }
  if (ask.action === 'list') {
    const approvals = (body['approvals'] ?? []) as ApprovalRecord[];
    if (ask.json) writeJson(io, { approvals });
    else if (approvals.length === 0) io.stderr.write(terminalSafe(`no ${ask.status === 'all' ? '' : `${ask.status} `}approval requests you may see at ${base}`) + '\n');
    else writeLines(io.stdout, approvals.map(summary));
    return 0;
  }
  const approval = body['approval'] as ApprovalRecord;
  const receipt = (body['receipt'] ?? null) as Receipt | null;
  if (ask.action === 'show') {
    if (ask.json) writeJson(io, body);
    else writeLines(io.stdout, [detail(approval), ...(receipt ? [`receipt ${receipt.id}: ${receipt.ok ? 'ok' : (receipt.code ?? 'failed')}`] : [])]);
    return approval.status === 'pending' || approval.status === 'approved' ? 0 : 1;
  }
  if (ask.json) writeJson(io, body);
  else {
    io.stderr.write(terminalSafe(`${approval.id} ${approval.status} by ${approval.decided_by ?? 'you'}`) + '\n');
    // approved at an instance that runs calls elsewhere than the one that filed it: recorded, it runs there (202)
    if (typeof body['message'] === 'string') io.stderr.write(`${terminalSafe(body['message'])}\n`);
    if (receipt) {
      const { receiptDetail } = await import('./format-outcome.js');
      writeLines(io.stdout, [receiptDetail(receipt)]);
    }
  }
  const lapsed = body['lease_lapsed'] as { error: string } | undefined;
  if (lapsed) {
    io.stderr.write(`hldp: WARNING: ${terminalSafe(lapsed.error)}\n`);
    return 1;
  }
  return ask.action === 'approve' && receipt && !receipt.ok ? 1 : 0;
}

/** One request to the gateway; an answer that is not the API's JSON (a web page, a proxy's sign-in) is said as such. */
async function request(url: string, method: 'GET' | 'POST', token: string | undefined, body?: object): Promise<Answer> {
  const { request: send } = await import('undici');
  const where = new URL(url);
  let status: number;
  let type: string;
  let text: string;
  try {
    const response = await send(url, {
      method,
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      // an approval runs the call at the gateway and answers with its receipt, and show --wait holds until a decision:
      // undici's 300 s limits would cut either short while the gateway still works (Ctrl-C ends the command)
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    status = response.statusCode;
    const header = response.headers['content-type'];
    type = Array.isArray(header) ? (header[0] ?? '') : (header ?? '');
    text = await response.body.text();
  } catch (error) {
    return { unreachable: `cannot reach the gateway at ${where.origin} (${(error as Error).message}): is --url (HLDP_URL) its address?` };
  }
  if (!/^application\/json\b/i.test(type)) {
    return { unreachable: `${where.origin}${where.pathname} answered HTTP ${status} with ${type === '' ? 'no content type' : `content type ${type}`}, not the gateway's JSON: is --url (HLDP_URL) the gateway's address?` };
  }
  try {
    return { status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { unreachable: `${where.origin} answered HTTP ${status} with JSON that does not parse` };
  }
}
