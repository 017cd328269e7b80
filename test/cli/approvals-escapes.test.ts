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

describe('hldp approvals, an answer quoting what was typed or sent (review Z13, Z13-3)', () => {
  // an id pasted from a message an agent wrote: the "not found" line quotes it, and the terminal is the approver's
  const id = 'apr_\u001b]0;owned\u0007\u001b[2J\u202Eexe';
  it('escapes the id quoted by a request not found, read locally and from a running gateway (--url)', async () => {
    const local = await runCli(['approvals', 'show', id, '--repo', gateway.repo, '--config', gateway.configFile], { env: { ...gateway.env, HLDP_TOKEN: TOKENS.alice } });
    const remote = await runCli(['approvals', 'deny', id, '--url', gateway.url], { env: { HLDP_TOKEN: TOKENS.alice, HLDP_CONFIG: undefined } });
    for (const run of [local, remote]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('\\x1b]0;owned');
      expect(run.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
  }, 120_000);
});
