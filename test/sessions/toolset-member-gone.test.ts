import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles } from '../helpers/git.js';
import { api, mcpClient, type PolicyGateway, startPolicyGateway } from '../policy/support.js';

// Review userX, X2: a commit that removed one tool of toolset 'ops' made the scan drop the whole toolset, and every
// session that had it enabled kept a ghost 'ops' that hid its remaining tool (shell-exec), could not be disabled by
// name and could not be enabled again. The toolset is now served with the members that exist.
let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'NOTES.md': 'the starter registry\n' });
});
afterAll(() => gateway?.stop());

const toolNames = async (session: string): Promise<string[]> =>
  ((await api(gateway.url, 'GET', `/v1/sessions/${session}/tools`, { who: 'bot' })).body.tools as Array<{ name: string }>).map((tool) => tool.name);
const toolset = (session: string, params: Record<string, unknown>) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'toolset', params } });
const removeAndScan = async (tool: string): Promise<void> => {
  await commitFiles(gateway.repo, { [`tools/${tool}/TOOL.hdlp`]: null }, `remove ${tool}`);
  expect((await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
};

describe('a toolset one of whose tools a commit removes', () => {
  it('keeps serving its other tools to the sessions that enabled it, over HTTP and /mcp, and can be disabled and enabled by name', async () => {
    const created = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: { toolsets: ['ops'] } });
    expect(created.status).toBe(201);
    const session = created.body.id as string;
    expect(await toolNames(session)).toEqual(expect.arrayContaining(['shell-exec', 'http-request']));
    const client = await mcpClient(gateway.url, 'bot', { toolsets: 'ops' });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shell-exec');
      await removeAndScan('http-request');
      const names = await toolNames(session);
      expect(names).toContain('shell-exec');
      expect(names).not.toContain('http-request');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shell-exec');
      const disabled = await toolset(session, { action: 'disable', name: 'ops' });
      expect(JSON.stringify(disabled.body)).toContain("disabled 'ops'");
      const enabled = await toolset(session, { action: 'enable', name: 'ops' });
      expect(JSON.stringify(enabled.body)).not.toContain('TOOLSET_NOT_FOUND');
      expect(await toolNames(session)).toContain('shell-exec');
    } finally {
      await client.close();
    }
  });

  it('when every tool of it is gone, still lets a session that holds it disable it by name', async () => {
    const created = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: { toolsets: ['ops'] } });
    const session = created.body.id as string;
    await removeAndScan('shell-exec');
    const disabled = await toolset(session, { action: 'disable', name: 'ops' });
    expect(JSON.stringify(disabled.body)).toContain("disabled 'ops'");
    expect((await api(gateway.url, 'GET', `/v1/sessions/${session}`, { who: 'bot' })).body.toolsets).toEqual([]);
  });
});
