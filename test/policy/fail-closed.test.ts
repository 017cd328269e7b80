import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles } from '../helpers/git.js';
import { api, mcpClient, type PolicyGateway, startPolicyGateway } from './support.js';

let gateway: PolicyGateway;

const SOUND = 'name: guard\nauthor: TEST-001\nwhy: tests\napproval:\n  - tools: [shell-exec]\n    when: { cmd: { regex: "rm -rf /" } }\n    decision: deny\n';

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/guard.hdlp': SOUND });
});
afterAll(() => gateway?.stop());

describe('a policy that cannot be read', () => {
  it('refuses every call, names file:line:col, and lets calls through again once fixed', async () => {
    expect((await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'status' } } })).status).toBe(200);

    // a typo that, read leniently, would have dropped the deny rule: the gateway must not run anything instead
    await commitFiles(gateway.repo, { 'policies/guard.hdlp': SOUND.replace('decision: deny', 'decison: deny') });
    const scan = await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' });
    expect(scan.body.errors).toContainEqual(expect.objectContaining({ file: 'policies/guard.hdlp', line: 7, column: 5, message: expect.stringContaining("unknown field 'approval.0.decison'") }));

    const refused = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'status' } } });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toMatch(/^the policy policies\/guard\.hdlp cannot be read \(policies\/guard\.hdlp:\d+:\d+: error: .*\); every call is refused until it is fixed/);
    const admin = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'git-ops', params: { op: 'status' } } });
    expect(admin.status).toBe(403);
    const client = await mcpClient(gateway.url, 'bot');
    try {
      // only the meta-tools are listed
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait']);
    } finally {
      await client.close();
    }
    const policies = await api(gateway.url, 'GET', '/v1/policies', { who: 'admin' });
    expect(policies.body).toMatchObject({ policies: [], broken: [expect.objectContaining({ file: 'policies/guard.hdlp' }), expect.objectContaining({ file: 'policies/guard.hdlp' })], refusing: expect.stringContaining('every call is refused') });
    expect((await api(gateway.url, 'GET', '/healthz', { who: 'admin' })).body.status).toBe('degraded');

    await commitFiles(gateway.repo, { 'policies/guard.hdlp': SOUND });
    await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' });
    expect((await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'status' } } })).status).toBe(200);
  });
});
