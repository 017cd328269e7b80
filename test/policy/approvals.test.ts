import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { api, mcpClient, type PolicyGateway, startGateway, startPolicyGateway, textOf, TOKENS } from './support.js';

// one real `hldp serve` for the file: bot (an agent) calls, alice and bob (approvers) decide; the policy lives in the repository
let gateway: PolicyGateway;
let workspace: string;

const WRITES = [
  'name: writes', 'author: TEST-001', 'why: writes outside the agent area need a person',
  'approval:',
  '  - tools: [file-write]',
  '    when: { path: { glob: "agent/**" } }',
  '    decision: allow',
  '  - tools: [shell-exec]',
  '    when: { cmd: { regex: "rm\\\\s+-rf\\\\s+/" } }',
  '    decision: deny',
  '    reason: never remove the root',
  '  - tools: [file-write]',
  '    when: { path: { glob: "soon/**" } }',
  '    decision: approve',
  '    expires_in_ms: 1000',
  '  - tools: [file-write]',
  '    when: { path: { glob: "ask/**" } }',
  '    decision: approve',
  '    elicit: true',
  '  - tools: [file-write]',
  '    decision: approve',
  '    reason: a write outside agent/ needs a person',
].join('\n');

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/writes.hdlp': WRITES });
  workspace = join(gateway.folder, 'workspace');
});
afterAll(() => gateway?.stop());

const write = (path: string, content = 'x\n', append = false) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content, append, create_dirs: true } } });
const exists = (path: string) => readFile(join(workspace, path), 'utf8').then((text) => text, () => undefined);

describe('the approval policy', () => {
  it('runs a write under the allowed glob directly, with no approval', async () => {
    const direct = await write('agent/notes.txt', 'mine\n');
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ ok: true, tool: 'file-write', caller: 'bot', approval: null, confirmation: null });
    expect(await exists('agent/notes.txt')).toBe('mine\n');
  });

  it('keeps a write outside it pending: 202 with the request id and no token, and nothing ran', async () => {
    const pending = await write('etc/outside.txt');
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ status: 'approval_required', id: expect.stringMatching(/^apr_/), tool: 'file-write', reason: expect.stringContaining('policies/writes.hdlp:20:5') });
    expect(pending.body.token).toBeUndefined();
    expect(await exists('etc/outside.txt')).toBeUndefined();
    const queue = await api(gateway.url, 'GET', '/v1/approvals?status=pending', { who: 'alice' });
    expect(queue.body.approvals.map((entry: { id: string }) => entry.id)).toContain(pending.body.id);
  });

  it('stores a DENIED receipt for a denied command, and nothing ran', async () => {
    const denied = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'shell-exec', params: { cmd: 'touch ran.txt; rm -rf /nothing-here' } } });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ ok: false, code: 'DENIED', exit_code: null, output: '', error: expect.stringContaining('never remove the root (policies/writes.hdlp:') });
    expect(await exists('ran.txt')).toBeUndefined();
    expect((await api(gateway.url, 'GET', `/v1/receipts/${denied.body.id}`, { who: 'admin' })).body).toMatchObject({ code: 'DENIED', caller: 'bot' });
  });
});

describe('approval requests between two principals', () => {
  it('refuses self-approval; the approver\'s approval runs the call once, and answers the waiting caller', async () => {
    const pending = await write('etc/approved.txt', 'approved\n');
    const id = pending.body.id as string;
    const waiting = api(gateway.url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
    const own = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'bot', body: { reason: 'trust me' } });
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({ code: 'APPROVAL_FORBIDDEN', error: expect.stringContaining('does not allow self-approval') });
    const approved = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { reason: 'looks right' } });
    expect(approved.status).toBe(200);
    expect(approved.body.receipt).toMatchObject({
      ok: true, tool: 'file-write', caller: 'bot', confirmation: id,
      approval: { id, status: 'approved', decided_by: 'alice', reason: 'looks right', via: 'api', rule: 'policies/writes.hdlp:20:5' },
    });
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ approval: { id, status: 'approved', decided_by: 'alice', receipt_id: approved.body.receipt.id }, receipt: { id: approved.body.receipt.id, ok: true } });
    expect(await exists('etc/approved.txt')).toBe('approved\n');
    const again = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'bob' });
    expect(again).toMatchObject({ status: 409, body: { code: 'APPROVAL_DECIDED' } });
  });

  it('runs the call exactly once for 20 concurrent approvals of one request', async () => {
    const pending = await write('etc/once.txt', 'ran\n', true);
    const id = pending.body.id as string;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: index % 2 ? 'alice' : 'bob' })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409 && answer.body.code === 'APPROVAL_DECIDED')).toHaveLength(19);
    // append: a second run would have left two lines
    expect(await exists('etc/once.txt')).toBe('ran\n');
    const receipts = await api(gateway.url, 'GET', '/v1/receipts?tool=file-write&limit=100', { who: 'admin' });
    expect(receipts.body.receipts.filter((receipt: { confirmation: string | null }) => receipt.confirmation === id)).toHaveLength(1);
  });

  it('refuses a decision on other params under the same id, and keeps the request pending', async () => {
    const pending = await write('etc/exact.txt', 'exact\n');
    const id = pending.body.id as string;
    const changed = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { params: { ...pending.body.params, content: 'rm -rf ~\n' } } });
    expect(changed).toMatchObject({ status: 409, body: { code: 'APPROVAL_MISMATCH' } });
    expect(await exists('etc/exact.txt')).toBeUndefined();
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body.approval.status).toBe('pending');
    const same = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { params: pending.body.params } });
    expect(same.body.receipt).toMatchObject({ ok: true });
    expect(await exists('etc/exact.txt')).toBe('exact\n');
  });

  // review R, R20: the request holds the params with their defaults filled in, and an approver sending back the agent's own was refused
  it('takes a decision on the params the agent sent, without the defaults the request filled in; a changed value is still refused by name', async () => {
    const sent = { path: 'as-sent.txt', content: 'as sent\n' };
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: sent } });
    expect(pending.status).toBe(202);
    const id = pending.body.id as string;
    const changed = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { params: { ...sent, append: true } } });
    expect(changed).toMatchObject({ status: 409, body: { code: 'APPROVAL_MISMATCH', error: expect.stringContaining('differ in: append') } });
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body.approval.status).toBe('pending');
    const same = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { params: sent } });
    expect(same.status).toBe(200);
    expect(same.body.receipt).toMatchObject({ ok: true, confirmation: id });
    expect(await exists('as-sent.txt')).toBe('as sent\n');
  });

  it('stores DENIED for a denial, with the approver and the reason, and answers the waiting caller', async () => {
    const pending = await write('etc/denied.txt');
    const id = pending.body.id as string;
    const waiting = api(gateway.url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
    const denied = await api(gateway.url, 'POST', `/v1/approvals/${id}/deny`, { who: 'bob', body: { reason: 'not today' } });
    expect(denied.body.receipt).toMatchObject({ ok: false, code: 'DENIED', approval: { status: 'denied', decided_by: 'bob', reason: 'not today' } });
    expect((await waiting).body.receipt).toMatchObject({ id: denied.body.receipt.id, code: 'DENIED' });
    expect(await exists('etc/denied.txt')).toBeUndefined();
  });

  it('stores EXPIRED when no one decides in time, and answers the waiting caller', async () => {
    const pending = await write('soon/late.txt');
    expect(pending.status).toBe(202);
    const answered = await api(gateway.url, 'GET', `/v1/approvals/${pending.body.id}?wait=60`, { who: 'bot' });
    expect(answered.body).toMatchObject({ approval: { status: 'expired', decided_via: 'expiry' }, receipt: { ok: false, code: 'EXPIRED', approval: { status: 'expired', via: 'expiry' } } });
    const late = await api(gateway.url, 'POST', `/v1/approvals/${pending.body.id}/approve`, { who: 'alice' });
    expect(late).toMatchObject({ status: 409, body: { code: 'APPROVAL_DECIDED' } });
    expect(await exists('soon/late.txt')).toBeUndefined();
  });

  it('lets the caller cancel its own request (CANCELLED), and no one else but an admin', async () => {
    const pending = await write('etc/cancelled.txt');
    const id = pending.body.id as string;
    expect((await api(gateway.url, 'POST', `/v1/approvals/${id}/cancel`, { who: 'alice' })).status).toBe(403);
    const cancelled = await api(gateway.url, 'POST', `/v1/approvals/${id}/cancel`, { who: 'bot' });
    expect(cancelled.body.receipt).toMatchObject({ code: 'CANCELLED', approval: { status: 'cancelled', decided_by: 'bot' } });
  });

  it('shows a principal that decides nothing only its own requests', async () => {
    const mine = await api(gateway.url, 'GET', '/v1/approvals', { who: 'lead' });
    expect(mine.status).toBe(200);
    expect(mine.body.approvals).toEqual([]);
    const pending = await write('etc/private.txt');
    expect((await api(gateway.url, 'GET', `/v1/approvals/${pending.body.id}`, { who: 'lead' })).status).toBe(404);
  });

  it.each(['approve', 'deny', 'cancel'])('answers %s by one who may not read the request as the read does: 404, and not a word of it', async (action) => {
    const pending = await write(`etc/secret-${action}.txt`, 'a private plan\n');
    const id = pending.body.id as string;
    const read = await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'lead' });
    const refused = await api(gateway.url, 'POST', `/v1/approvals/${id}/${action}`, { who: 'lead' });
    expect(refused).toMatchObject({ status: read.status, body: { code: 'APPROVAL_NOT_FOUND' } });
    expect(refused.body.approval).toBeUndefined();
    expect(JSON.stringify(refused.body)).not.toContain(`secret-${action}`);
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body).toMatchObject({ approval: { status: 'pending' } });
  });

  it('refuses to run a request after the policy moved, with a CANCELLED receipt', async () => {
    const pending = await write('etc/moved.txt');
    await commitFiles(gateway.repo, { 'policies/writes.hdlp': WRITES.replace('a write outside agent/ needs a person', 'a write outside agent/ needs someone') });
    expect((await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
    const stale = await api(gateway.url, 'POST', `/v1/approvals/${pending.body.id}/approve`, { who: 'alice' });
    expect(stale).toMatchObject({ status: 409, body: { code: 'APPROVAL_OUTDATED', receipt: { code: 'CANCELLED', approval: { status: 'cancelled', via: 'outdated' } } } });
    expect(await exists('etc/moved.txt')).toBeUndefined();
  });
});

describe('MCP elicitation (the official SDK client, declaring the capability)', () => {
  const askAt = async (answer: 'accept' | 'decline', path: string) => {
    const client = await mcpClient(gateway.url, 'bot', { capabilities: { elicitation: {} } });
    const asked: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer === 'accept' ? { action: 'accept', content: { reason: 'fine by me' } } : { action: 'decline' };
    });
    try {
      const result = (await client.callTool({ name: 'file-write', arguments: { path, content: 'asked\n', create_dirs: true } })) as CallToolResult;
      return { result, asked };
    } finally {
      await client.close();
    }
  };

  it('asks the human at the client, showing the exact call; accept runs it once', async () => {
    const { result, asked } = await askAt('accept', 'ask/yes.txt');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('"path": "ask/yes.txt"');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ok: true, approval: { status: 'approved', via: 'elicitation', decided_by: 'bot', reason: 'fine by me' } });
    expect(await exists('ask/yes.txt')).toBe('asked\n');
  });

  it('stores DENIED when the human declines, and nothing ran', async () => {
    const { result } = await askAt('decline', 'ask/no.txt');
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ ok: false, code: 'DENIED', approval: { status: 'denied', via: 'elicitation' } });
    expect(await exists('ask/no.txt')).toBeUndefined();
  });

  it('answers pending with the request id where the rule does not let the client decide', async () => {
    const { result, asked } = await askAt('accept', 'etc/not-asked.txt');
    expect(asked).toEqual([]);
    expect(textOf(result)).toMatch(/is pending approval: nothing has run\..*Request apr_\S+ waits for role approver or admin/s);
    expect(await exists('etc/not-asked.txt')).toBeUndefined();
  });
});

describe('hldp approvals and hldp receipts --rejected (real CLI processes over the same store)', () => {
  it('lists the queue for an approver and approves from the terminal; the waiting caller hears of it', async () => {
    const pending = await write('etc/from-cli.txt', 'cli\n');
    const id = pending.body.id as string;
    const env = { ...gateway.env, HLDP_TOKEN: TOKENS.alice };
    const listed = await runCli(['approvals', 'list', '--repo', gateway.repo, '--config', gateway.configFile, '--json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).approvals.map((entry: { id: string }) => entry.id)).toContain(id);
    const waiting = api(gateway.url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
    const asBot = await runCli(['approvals', 'approve', id, '--repo', gateway.repo, '--config', gateway.configFile], { env: { ...gateway.env, HLDP_TOKEN: TOKENS.bot } });
    expect(asBot.code).toBe(1);
    expect(asBot.stderr).toContain('APPROVAL_FORBIDDEN');
    const approved = await runCli(['approvals', 'approve', id, '--reason', 'from the terminal', '--repo', gateway.repo, '--config', gateway.configFile, '--json'], { env });
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout).receipt).toMatchObject({ ok: true, approval: { decided_by: 'alice', reason: 'from the terminal' } });
    expect((await waiting).body).toMatchObject({ approval: { status: 'approved' }, receipt: { ok: true } });
    expect(await exists('etc/from-cli.txt')).toBe('cli\n');
  });

  it('lists a decided request with who decided it and why, not its expiry and the rule (userX, X6)', async () => {
    const pending = await write('etc/denied-by-cli.txt', 'no\n');
    const id = pending.body.id as string;
    const env = { ...gateway.env, HLDP_TOKEN: TOKENS.alice };
    const denied = await runCli(['approvals', 'deny', id, '--reason', 'not on a Friday', '--repo', gateway.repo, '--config', gateway.configFile], { env });
    expect(denied.code).toBe(0);
    const listed = await runCli(['approvals', 'list', '--status', 'all', '--repo', gateway.repo, '--config', gateway.configFile], { env });
    expect(listed.code).toBe(0);
    const line = listed.stdout.split('\n').find((text) => text.startsWith(id))!;
    expect(line).toMatch(/ denied +\S+ +by bot +denied by alice at \S+ via \S+: not on a Friday$/);
    expect(line).not.toContain('expires');
  });

  it('keeps a record of a rejected call (secrets redacted), listed by hldp receipts --rejected and GET /v1/rejections', async () => {
    const unknown = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'shel-exec', params: { cmd: 'ls', pasted: TOKENS.bot } } });
    expect(unknown.status).toBe(404);
    // the record is written after the answer: look until it is there
    let listed: { code: number | null; stdout: string } = { code: null, stdout: '' };
    for (let attempt = 0; attempt < 50; attempt += 1) {
      listed = await runCli(['receipts', '--rejected', '--config', gateway.configFile, '--json'], { env: gateway.env });
      if (listed.stdout.includes('shel-exec')) break;
    }
    expect(listed.code).toBe(0);
    const record = JSON.parse(listed.stdout).rejections.find((entry: { tool: string }) => entry.tool === 'shel-exec');
    expect(record).toMatchObject({ type: 'rejected', caller: 'bot', code: 'TOOL_NOT_FOUND', reason: expect.stringContaining("'shel-exec'"), params: { cmd: 'ls' } });
    expect(JSON.stringify(record)).not.toContain(TOKENS.bot);
    const own = await api(gateway.url, 'GET', '/v1/rejections?tool=shel-exec', { who: 'bot' });
    expect(own.body.rejections[0]).toMatchObject({ id: record.id });
    expect((await api(gateway.url, 'GET', '/v1/rejections', { who: 'lead' })).body.rejections.filter((entry: { caller: string }) => entry.caller !== 'lead')).toEqual([]);
  });

  it('marks a request outdated at the served commit in list and show, and approve says so rather than "decide it where it was made" (review userZ6 F2)', async () => {
    const pending = await write('etc/outdated-at-cli.txt', 'late\n');
    const id = pending.body.id as string;
    await commitFiles(gateway.repo, { 'policies/writes.hdlp': WRITES.replace('a write outside agent/ needs a person', 'a write outside agent/ needs a person, today') });
    // the gateway serves the new commit too, as the finding's instances did after their rescan
    expect((await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
    const env = { ...gateway.env, HLDP_TOKEN: TOKENS.alice };
    const over = ['--repo', gateway.repo, '--config', gateway.configFile];
    const listed = await runCli(['approvals', 'list', ...over], { env });
    expect(listed.stdout.split('\n').find((text) => text.startsWith(id))).toMatch(/ pending .*  OUTDATED: the policies \(policies\/\) changed between commit \S+, where the request was made, and \S+: approving it at a gateway serving that commit cancels it, nothing run; deny it, or close it as outdated in the console$/);
    expect(JSON.parse((await runCli(['approvals', 'list', '--json', ...over], { env })).stdout).approvals.find((entry: { id: string }) => entry.id === id)).toMatchObject({ outdated: expect.stringContaining('the policies (policies/) changed') });
    expect((await runCli(['approvals', 'show', id, ...over], { env })).stdout).toMatch(new RegExp(`^${id}  pending  OUTDATED\noutdated  the policies`));
    const approve = await runCli(['approvals', 'approve', id, ...over], { env });
    expect(approve.code).toBe(1);
    expect(approve.stderr).toMatch(new RegExp(`^APPROVAL_MISMATCH: request '${id}' is outdated at commit \\S+, which this process reads: the policies \\(policies/\\) changed .*A gateway serving that commit cancels it when approved \\(nothing runs; its caller 'bot' must call the tool again\\): deny it \\(hldp approvals deny ${id}\\)`));
    expect(approve.stderr).not.toContain('decide it where it was made');
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body).toMatchObject({ approval: { status: 'pending' } });
    // what it advises does what it says
    expect((await runCli(['approvals', 'deny', id, '--reason', 'outdated', ...over], { env })).code).toBe(0);
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body).toMatchObject({ approval: { status: 'denied' } });
    expect(await exists('etc/outdated-at-cli.txt')).toBeUndefined();
  });

  it('never shows a token in the gateway\'s log', () => {
    const log = gateway.service.stderr();
    expect(log).toContain('call');
    for (const token of Object.values(TOKENS)) expect(log).not.toContain(token);
  });
});

describe('a server shutting down while a caller waits', () => {
  it('answers the waiter with the request as it stands and exits without waiting out ?wait=', async () => {
    const second = await startGateway(gateway.repo, gateway.folder);
    const pending = await api(second.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'etc/shutdown.txt', content: 'x' } } });
    const waiting = api(second.url, 'GET', `/v1/approvals/${pending.body.id}?wait=120`, { who: 'bot' }).catch((error: Error) => ({ status: 0, body: String(error) }));
    // a request after it, answered: the wait has reached the server
    expect((await api(second.url, 'GET', '/healthz')).status).toBe(200);
    expect(await second.service.stop()).toBe(0);
    const answered = await waiting;
    // answered within the test's own timeout (30 s), far under the 120 s asked for
    expect(answered.status === 0 || answered.body.approval.status === 'pending').toBe(true);
  });
});
