import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, mcpClient, startPolicyGateway, type PolicyGateway, type Who } from '../policy/support.js';

// Review userZ4, F8: README's Approvals section offers `callers:` + `decision: deny` as the way to stop a principal.
// Such a rule denied every call of git-ops to bot, yet its session listed git-ops unmarked, the repo hint told it to
// look at git-ops, and GET /v1/sessions/:id/tools/git-ops said `visible`: bot burned calls on a tool it could never
// run. A deny without conditions for the caller now makes the tool `forbidden` for it in the one visibility function,
// with the rule's file:line:col; a deny with `when:` still depends on the params, and an allow before it for the same
// caller means the deny never applies to every call (first match wins). Real git repository and `hldp serve`.

const POLICY = [
  'name: team', 'author: TEST-001', 'why: bot does not touch the history; lead may write docs only',
  'approval:',
  '  - tools: [git-ops]', '    callers: { principals: [bot] }', '    decision: deny', '    reason: bot stays out of the history',
  // conditional: only some reads are denied, so file-read stays usable
  '  - tools: [file-read]', '    callers: { principals: [bot] }', '    when: { path: { glob: "secrets/**" } }', '    decision: deny',
  // lead: an allow with conditions first, then the deny: the deny does not settle every call
  '  - tools: [file-write]', '    callers: { principals: [lead] }', '    when: { path: { glob: "docs/**" } }', '    decision: allow',
  '  - tools: [file-write]', '    callers: { principals: [lead] }', '    decision: deny',
].join('\n');

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/team.hdlp': POLICY });
}, 120_000);
afterAll(() => gateway?.stop());

async function session(who: Who, toolsets: string[]): Promise<string> {
  const opened = await api(gateway.url, 'POST', '/v1/sessions', { who, body: { toolsets } });
  expect(opened.status).toBe(201);
  return opened.body.id as string;
}

const stateOf = async (who: Who, id: string, tool: string) => (await api(gateway.url, 'GET', `/v1/sessions/${id}/tools/${tool}`, { who })).body;

describe('a tool an approval rule denies to a caller outright', () => {
  it('is forbidden for it, with the rule\'s file:line:col, and not in its prompt block', async () => {
    const id = await session('bot', ['repo']);
    const git = await stateOf('bot', id, 'git-ops');
    expect(git.state).toBe('forbidden');
    expect(git.reason).toMatch(/^bot stays out of the history \(policies\/team\.hdlp:5:5: an approval rule with callers and no conditions\)$/);
    const prompt = (await api(gateway.url, 'GET', `/v1/sessions/${id}/prompt`, { who: 'bot' })).body.text as string;
    // no signature, no line among the other tools (the repo toolset's own hint, its author's words, still names it)
    expect(prompt).not.toMatch(/^- git-ops/m);
    expect(prompt).toMatch(/^- file-read\(/m);
    const listed = (await api(gateway.url, 'GET', `/v1/sessions/${id}/tools`, { who: 'bot' })).body;
    expect(JSON.stringify(listed)).not.toMatch(/"git-ops"/);
  });

  it('is refused on call with that reason (403 TOOL_FORBIDDEN), over HTTP and MCP', async () => {
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'status' } } });
    expect(call.status).toBe(403);
    expect(call.body).toMatchObject({ code: 'TOOL_FORBIDDEN' });
    expect(call.body.error).toContain('policies/team.hdlp:5:5');
    const client = await mcpClient(gateway.url, 'bot', { toolsets: 'repo' });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).not.toContain('git-ops');
      expect(tools.map((tool) => tool.name)).toContain('file-read');
    } finally {
      await client.close();
    }
  });

  it('stays visible to a caller the rule does not name', async () => {
    const id = await session('lead', ['repo']);
    expect((await stateOf('lead', id, 'git-ops')).state).toBe('visible');
  });

  it('stays visible where the deny has conditions (it depends on the params)', async () => {
    const id = await session('bot', ['repo']);
    expect((await stateOf('bot', id, 'file-read')).state).toBe('visible');
  });

  it('stays visible where an earlier rule for the same caller lets some calls through (first match wins)', async () => {
    const id = await session('lead', ['repo']);
    expect((await stateOf('lead', id, 'file-write')).state).toBe('visible');
  });
});
