import type { Receipt } from '../core/index.js';
import type { ApprovalRecord } from '../store/index.js';
import { approvalsAnswerProblem } from './approvals-answer.js';
import { detail, summary } from './approval-lines.js';
import { cleartextTokenWarning } from './cleartext-token.js';
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
 * The most bytes of an answer read (review Z15, Z15-4: an answer that never ended was read whole, 535 MB in 20 s). A page
 * of `GET /v1/approvals` holds at most about 4 MiB of params (the gateway's APPROVAL_PAGE_BYTES) and 1,000 requests;
 * one request's answer holds its call's receipt, whose output and stderr are each held to the tool's max_output_bytes,
 * at most the gateway's (16 MiB by default). A larger answer is not the gateway's, or holds a receipt better read in
 * the console.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

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
  const cleartext = cleartextTokenWarning(base, ask.token);
  if (cleartext !== undefined) io.stderr.write(`hldp: WARNING: ${terminalSafe(cleartext)}\n`);
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
  const problem = approvalsAnswerProblem(body, ask.action);
  if (problem !== undefined) {
    io.stderr.write(`hldp: ${terminalSafe(`${base} answered HTTP ${status} with JSON that is not the gateway's approvals answer (${problem}): is --url (HLDP_URL) its address?`)}\n`);
    return 2;
  }
  if (ask.action === 'list') {
    const approvals = body['approvals'] as ApprovalRecord[];
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
    const read = await readAtMost(response.body, MAX_ANSWER_BYTES);
    if (read === undefined) return { unreachable: tooLong(method, where) };
    text = read;
  } catch (error) {
    return { unreachable: `cannot reach the gateway at ${where.origin} (${(error as Error).message}): is --url (HLDP_URL) its address?` };
  }
  if (!/^application\/json\b/i.test(type)) {
    return { unreachable: `${where.origin}${where.pathname} answered HTTP ${status} with ${type === '' ? 'no content type' : `content type ${type}`}, not the gateway's JSON: is --url (HLDP_URL) the gateway's address?` };
  }
  try {
    const body: unknown = JSON.parse(text);
    // the error branch reads `code` and `error` of it: `null` or `5` is no answer of the API's
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return { unreachable: `${where.origin} answered HTTP ${status} with JSON that is not an object: is --url (HLDP_URL) the gateway's address?` };
    return { status, body: body as Record<string, unknown> };
  } catch {
    return { unreachable: `${where.origin} answered HTTP ${status} with JSON that does not parse: is --url (HLDP_URL) the gateway's address?` };
  }
}

/** The body's text, or undefined once it holds more than `limit` bytes: it is then read no further. */
async function readAtMost(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// an answer cut at MAX_ANSWER_BYTES: what it means, and for a decision, that it was sent all the same
function tooLong(method: 'GET' | 'POST', where: URL): string {
  const mebibytes = MAX_ANSWER_BYTES / 1024 / 1024;
  const decided = method === 'POST' ? '; the decision was sent and may have been taken: see the request in the gateway\'s console' : '';
  return `${method} ${where.origin}${where.pathname} answered more than ${mebibytes} MiB, more than the gateway's approvals answers hold (unless a receipt in it is that large: read it in the console); read no further${decided}. Is --url (HLDP_URL) the gateway's address?`;
}
