// An agent whose HTTP client retried sent the same call 22 times: 20 requests were filed for it, approvers saw 20
// identical requests, and each "Approve and run" ran the destructive call once more (review userZ9, U9-8). Now a call
// repeated while its request waits (the same caller and session, tool, params, binding and rule) is answered with that
// request, saying so, by HTTP, MCP and `hldp call`, and by any number of instances on one store at once; once it is
// decided, the call files anew.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { api, deployOnOneStore, mcpClient, type PolicyGateway, startPolicyGateway } from './support.js';

// a write to tok-* is the caller's to confirm (a token); any other write waits for an approver
const HELD = {
  'policies/held.hdlp': [
    'name: held', 'author: TEST-001', 'why: a person looks at writes first', 'approval:',
    '  - tools: [file-write]', '    when: { path: { glob: "tok-*" } }', '    decision: approve', '    self_approval: true',
    '  - tools: [file-write]', '    decision: approve', '    approvers: { roles: [approver] }',
  ].join('\n'),
};

const writeAt = (url: string, path: string, content = 'wipe\n') => api(url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content } } });
const pendingIds = async (url: string): Promise<string[]> => ((await api(url, 'GET', '/v1/approvals?status=pending&limit=100', { who: 'admin' })).body.approvals as Array<{ id: string }>).map((approval) => approval.id);

describe('a call repeated while its request waits (SQLite)', () => {
  let gateway: PolicyGateway;
  beforeAll(async () => {
    gateway = await startPolicyGateway(HELD);
  });
  afterAll(() => gateway?.stop());
  const write = (path: string, content?: string) => writeAt(gateway.url, path, content);

  it('answers with the request that waits, filed once, at once or one after another; different params or a decided request file anew', async () => {
    const first = await write('scratch.txt');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'approval_required', id: expect.stringMatching(/^apr_/) });
    expect(first.body.already_pending).toBeUndefined();
    const id = first.body.id as string;
    // a retrying client: one after another, then five at once
    const again = [await write('scratch.txt'), ...(await Promise.all([1, 2, 3, 4, 5].map(() => write('scratch.txt'))))];
    for (const answer of again) {
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ status: 'approval_required', id, already_pending: true });
      expect(answer.body.message).toContain(`This same call is already waiting as ${id}`);
      expect(answer.body.message).toContain(`GET /v1/approvals/${id}?wait=30`);
    }
    expect(await pendingIds(gateway.url)).toEqual([id]);

    // other params are another call
    const other = await write('scratch.txt', 'other\n');
    expect(other.status).toBe(202);
    expect(other.body.id).not.toBe(id);
    expect(other.body.already_pending).toBeUndefined();

    // once decided, the same call files a new request
    expect((await api(gateway.url, 'POST', `/v1/approvals/${id}/deny`, { who: 'alice', body: { reason: 'no' } })).status).toBe(200);
    const anew = await write('scratch.txt');
    expect(anew.status).toBe(202);
    expect(anew.body.id).not.toBe(id);
    expect(anew.body.already_pending).toBeUndefined();
    expect((await pendingIds(gateway.url)).sort()).toEqual([other.body.id, anew.body.id].sort());

    // /metrics counts the repeats as already_pending, not as requests filed; approvers were told of each request once
    const metrics = (await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: 'Bearer admin-token-0123456789abcdef' } })).text()).split('\n');
    expect(metrics).toContain('hldp_calls_total{tool="file-write",executor="gatekeeper",outcome="approval_required"} 3');
    expect(metrics).toContain('hldp_calls_total{tool="file-write",executor="gatekeeper",outcome="already_pending"} 6');
    const database = new Database(join(gateway.env.HLDP_DATA_DIR!, 'receipts.db'), { readonly: true });
    try {
      const requested = database.prepare<[], { data: string }>("SELECT data FROM events WHERE type = 'approval.requested'").all().map((row) => (JSON.parse(row.data) as { approval: string }).approval);
      expect(requested.sort()).toEqual([id, other.body.id, anew.body.id].sort());
    } finally {
      database.close();
    }
  });

  it("gives a repeated self-approval a token that replaces the one given before: the old one runs nothing, the new one runs the call once", async () => {
    const first = await write('tok-a.txt');
    const second = await write('tok-a.txt');
    expect(second.body).toMatchObject({ status: 'confirmation_required', id: first.body.id, already_pending: true, token: expect.stringMatching(/^hldp_confirm_/) });
    expect(second.body.token).not.toBe(first.body.token);
    expect(second.body.message).toContain('this token replaces the one given before');
    const stale = await api(gateway.url, 'POST', '/v1/confirm', { who: 'bot', body: { token: first.body.token } });
    expect(stale.body).toMatchObject({ code: 'CONFIRMATION_INVALID' });
    const ran = await api(gateway.url, 'POST', '/v1/confirm', { who: 'bot', body: { token: second.body.token } });
    expect(ran.body).toMatchObject({ ok: true, tool: 'file-write', confirmation: first.body.id });
  });

  it('answers MCP tools/call, of the tool and of the meta tool, and hldp call with the request that waits', async () => {
    const client = await mcpClient(gateway.url, 'bot');
    try {
      const call = () => client.callTool({ name: 'file-write', arguments: { path: 'mcp.txt', content: 'x\n' } });
      const first = (await call()).structuredContent as { id: string; already_pending?: boolean };
      const second = await call();
      expect(second.structuredContent).toMatchObject({ id: first.id, already_pending: true });
      expect((second.content as Array<{ text: string }>)[0]!.text).toContain(`This same call is already waiting as ${first.id}: no new request was filed`);
      const meta = await client.callTool({ name: 'tool_call', arguments: { name: 'file-write', params: { path: 'mcp.txt', content: 'x\n' } } });
      expect(meta.structuredContent).toMatchObject({ id: first.id, already_pending: true });
    } finally {
      await client.close();
    }

    const cli = () => runCli(['call', 'file-write', '--repo', gateway.repo, '--config', gateway.configFile, '--json', '--params', JSON.stringify({ path: 'cli.txt', content: 'x\n' })], { env: { ...process.env, ...gateway.env } });
    const one = JSON.parse((await cli()).stdout) as { id: string; already_pending?: boolean };
    expect(one.id).toMatch(/^apr_/);
    expect(one.already_pending).toBeUndefined();
    expect(JSON.parse((await cli()).stdout)).toMatchObject({ id: one.id, already_pending: true });
  });
});

describeWithPostgres('a call repeated at two instances on one PostgreSQL', () => {
  let deployment: { a: string; b: string; stop(): Promise<void> };
  beforeAll(async () => {
    deployment = await deployOnOneStore('postgres', HELD, async (on) => {
      // one workspace: where a call runs is part of what makes it the same call
      const workspace = join(on.folder, 'workspace');
      await mkdir(workspace);
      const a = await on.start('a', { env: { HLDP_WORKSPACE: workspace } });
      const b = await on.start('b', { env: { HLDP_WORKSPACE: workspace } });
      return { a: a.url, b: b.url };
    });
  });
  afterAll(() => deployment?.stop());

  it('files one request for identical calls made at once at both instances', async () => {
    const answers = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((index) => writeAt(index % 2 === 0 ? deployment.a : deployment.b, 'shared.txt')));
    const ids = new Set(answers.map((answer) => answer.body.id as string));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(202));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.body.already_pending === true)).toHaveLength(7);
    expect(await pendingIds(deployment.b)).toEqual([...ids]);
  });
});
