// fixe17 (review Z3, 3): errors17 keeps a broken file's errors for admins on /v1/tools, /v1/scan, the Registry page
// and the events, but asking for a toolset whose file is broken still told any principal its path, line, column and
// the parser's message ("its definition is broken: toolsets/payroll/TOOLSET.hdlp:2:14: …"), or the member tools it
// named: when a session was opened with it, and from the `toolset` meta-tool's enable. Where principals are
// configured, a non-admin is now told only that its definition failed to load; the admin is told as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { commitFiles } from '../helpers/git.js';
import { api, mcpClient, startPolicyGateway, textOf, type PolicyGateway, type Who } from '../policy/support.js';

const BROKEN = "toolset 'payroll' cannot be enabled: its definition failed to load; an administrator can see why";
// ledger's only error is a member the registry does not have: that its members went is the session's to know, which not
const WITHHELD = (name: string): string => (name === 'payroll' ? BROKEN : "toolset 'ledger' is not in the registry at commit");
const MEMBERS_GONE = 'its members were removed from the registry, and it names no other';
// what the broken files would tell: their path (and file:line), the parser's words, the member tool ledger names
const TOLD = /TOOLSET\.hdlp|payroll-export|definition is broken/;

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({
    // a YAML syntax error
    'toolsets/payroll/TOOLSET.hdlp': 'name: payroll\ndescription: [run the payroll export\n',
    // names a tool the registry does not have (UNKNOWN_MEMBER): its error quotes the member's name
    'toolsets/ledger/TOOLSET.hdlp': 'name: ledger\ndescription: the ledger tools\ntools: [payroll-export]\nauthor: TEST-001\nwhy: tests need a toolset whose members are gone\n',
  }, { logLevel: 'warn' });
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
});

async function openSession(who: Who, toolsets: string[]): Promise<{ status: number; body: any }> {
  return api(gateway.url, 'POST', '/v1/sessions', { who, body: { toolsets } });
}

async function enableOverHttp(who: Who, name: string): Promise<string> {
  const opened = await openSession(who, []);
  expect(opened.status).toBe(201);
  const called = await api(gateway.url, 'POST', '/v1/call', { who, session: opened.body.id, body: { tool: 'toolset', params: { action: 'enable', name } } });
  return JSON.stringify(called.body);
}

describe('a toolset whose definition is broken, with principals configured', () => {
  it.each(['payroll', 'ledger'])('opening an HTTP session with %s tells bot (an agent) only that it failed to load', async (name) => {
    const opened = await openSession('bot', [name]);
    expect(opened.body).toMatchObject({ code: 'TOOLSET_NOT_FOUND' });
    expect(opened.body.error).toContain(WITHHELD(name));
    if (name === 'ledger') expect(opened.body.error).toContain(MEMBERS_GONE);
    expect(JSON.stringify(opened.body)).not.toMatch(TOLD);
  });

  it.each(['payroll', 'ledger'])('the toolset tool over HTTP tells bot only that %s failed to load', async (name) => {
    const answer = await enableOverHttp('bot', name);
    expect(answer).toContain(WITHHELD(name));
    if (name === 'ledger') expect(answer).toContain(MEMBERS_GONE);
    expect(answer).not.toMatch(TOLD);
  });

  it('the toolset tool over MCP tells bot only that payroll failed to load', { timeout: 60_000 }, async () => {
    const client = await mcpClient(gateway.url, 'bot');
    try {
      const result = (await client.callTool({ name: 'toolset', arguments: { action: 'enable', name: 'payroll' } })) as CallToolResult;
      expect(textOf(result)).toContain(WITHHELD('payroll'));
      expect(JSON.stringify(result)).not.toMatch(TOLD);
    } finally {
      await client.close();
    }
  });

  it('tells the admin why, at file:line:col, as before', async () => {
    const opened = await openSession('admin', ['payroll']);
    expect(opened.body).toMatchObject({ code: 'TOOLSET_NOT_FOUND' });
    expect(JSON.stringify(opened.body)).toMatch(/its definition is broken: toolsets\/payroll\/TOOLSET\.hdlp:\d+:\d+: /);
    expect(await enableOverHttp('admin', 'ledger')).toContain('payroll-export');
  });

  // last: it breaks ops for every later request
  it('a session holding a toolset a push broke is told it is gone, not why', { timeout: 60_000 }, async () => {
    const opened = await openSession('bot', ['ops']);
    expect(opened.status).toBe(201);
    await commitFiles(gateway.repo, { 'toolsets/ops/TOOLSET.hdlp': 'name: ops\ndescription: [unclosed\n' }, 'break toolset ops');
    expect((await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
    const described = await api(gateway.url, 'GET', `/v1/sessions/${opened.body.id}`, { who: 'bot' });
    const ops = (described.body.toolsets as Array<{ name: string; gone?: string }>).find((toolset) => toolset.name === 'ops');
    expect(ops?.gone).toMatch(/^toolset 'ops' is gone since commit [0-9a-f]{7}: its definition failed to load; an administrator can see why; disable it with /);
    const listed = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session: opened.body.id, body: { tool: 'toolset', params: { action: 'list' } } });
    expect(JSON.stringify(listed.body)).toContain("toolset 'ops' is gone since commit");
    expect(JSON.stringify(listed.body)).not.toMatch(TOLD);
  });
});
