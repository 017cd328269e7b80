import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { api, type PolicyGateway, startPolicyGateway, TOKENS } from '../policy/support.js';

const POLICY = ['name: writes', 'author: TEST-001', 'why: writes need a person', 'approval:', '  - tools: [file-write]', '    decision: approve', '    reason: a write needs a person'].join('\n');

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/writes.hdlp': POLICY }, { logLevel: 'warn' });
}, 120_000);
afterAll(() => gateway?.stop());

describe('hldp approvals show, what an approver reads before deciding (found in review)', () => {
  it('shows an agent\'s params with bidi overrides and C1 controls escaped', async () => {
    // what the approver sees: notes/txt.exe ... reordered by U+202E; \u009b is CSI in 8-bit terminals
    const path = 'notes/\u202Etxt.exe\u202C\u009b2J';
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'x\n' } } });
    expect(pending.body.status).toBe('approval_required');
    const shown = await runCli(['approvals', 'show', pending.body.id, '--repo', gateway.repo, '--config', gateway.configFile], { env: { ...gateway.env, HLDP_TOKEN: TOKENS.alice } });
    expect(shown.stdout).toContain('params');
    expect(shown.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
  }, 120_000);
});
