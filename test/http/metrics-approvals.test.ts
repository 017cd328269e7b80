import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, echoTool, startPolicyGateway, TOKENS, type PolicyGateway } from '../policy/support.js';

// Review userZ6, F11: /metrics counted a request waiting for an approver as outcome="confirmation_required" with an
// empty executor, the same as a call its caller may confirm itself: a dashboard could not tell "agents waiting for a
// person" from self-confirmations. Now they are `approval_required` and `confirmation_required`, with the tool's executor.
const HELD = [
  'name: held', 'author: TEST-001', 'why: a person reviews writes; a write to tok-* is the caller\'s to confirm', 'approval:',
  '  - tools: [file-write]', '    when: { path: { glob: "tok-*" } }', '    decision: approve', '    self_approval: true',
  '  - tools: [file-write]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/held.hdlp': HELD, 'tools/not-listed/TOOL.hdlp': echoTool('not-listed') });
}, 120_000);
afterAll(() => gateway?.stop());

describe('GET /metrics of calls that wait', () => {
  it('counts a request for an approver as approval_required and a self-confirmation as confirmation_required, each with its executor', async () => {
    const approval = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'etc.txt', content: 'x' } } });
    expect(approval.status, JSON.stringify(approval.body)).toBe(202);
    expect(approval.body).toMatchObject({ status: 'approval_required' });
    const confirmation = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'tok-1.txt', content: 'x' } } });
    expect(confirmation.status, JSON.stringify(confirmation.body)).toBe(202);
    expect(confirmation.body).toMatchObject({ status: 'confirmation_required' });
    const response = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TOKENS.admin}` } });
    const text = await response.text();
    expect(text).toMatch(/^hldp_calls_total\{tool="file-write",executor="gatekeeper",outcome="approval_required"\} 1$/m);
    expect(text).toMatch(/^hldp_calls_total\{tool="file-write",executor="gatekeeper",outcome="confirmation_required"\} 1$/m);
    expect(text).not.toMatch(/executor="",outcome="(approval|confirmation)_required"/);
  });

  // an operator alerts on people keeping agents waiting: how many requests wait, and for how long the oldest has
  it('reports the requests waiting for a decision and how long the oldest has waited, and both fall to 0 once decided', async () => {
    const gauges = async (): Promise<{ pending: number; oldest: number }> => {
      const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TOKENS.admin}` } })).text();
      const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return { pending: value('hldp_approvals_pending'), oldest: value('hldp_approvals_oldest_pending_seconds') };
    };
    // the first test's two requests still wait
    const first = await gauges();
    expect(first.pending).toBe(2);
    expect(first.oldest).toBeGreaterThanOrEqual(0);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const later = await gauges();
    expect(later.oldest).toBeGreaterThanOrEqual(first.oldest + 1);
    const third = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'etc2.txt', content: 'y' } } });
    expect(third.status).toBe(202);
    expect((await gauges()).pending).toBe(3);
    const listed = (await api(gateway.url, 'GET', '/v1/approvals?status=pending', { who: 'admin' })).body.approvals as Array<{ id: string }>;
    expect(listed).toHaveLength(3);
    for (const { id } of listed) expect((await api(gateway.url, 'POST', `/v1/approvals/${id}/cancel`, { who: 'bot', body: {} })).status).toBe(200);
    expect(await gauges()).toEqual({ pending: 0, oldest: 0 });
  });

  // review userZ9, U9-3: a refused call was counted under tool="" and a denied one as `failed`, like a tool that crashed
  it('counts a refused call under its tool and a denied one as denied, never as failed, and a made-up name under no tool', async () => {
    // bot's tools do not list it
    const refused = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'not-listed', params: { text: 'hi' } } });
    expect(refused.body, JSON.stringify(refused.body)).toMatchObject({ code: 'TOOL_FORBIDDEN' });
    const held = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'etc3.txt', content: 'z' } } });
    expect(held.status).toBe(202);
    expect((await api(gateway.url, 'POST', `/v1/approvals/${held.body.id}/deny`, { who: 'alice', body: { reason: 'no' } })).status).toBe(200);
    const unknown = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'no-such-tool-4711', params: {} } });
    expect(unknown.body).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TOKENS.admin}` } })).text();
    expect(text).toMatch(/^hldp_calls_total\{tool="not-listed",executor="shell",outcome="refused"\} 1$/m);
    expect(text).toMatch(/^hldp_calls_total\{tool="file-write",executor="gatekeeper",outcome="denied"\} [1-9]/m);
    expect(text).not.toMatch(/^hldp_calls_total\{tool="file-write",executor="gatekeeper",outcome="failed"\}/m);
    expect(text).toMatch(/^hldp_calls_total\{tool="",executor="",outcome="not_found"\} 1$/m);
    expect(text).not.toContain('no-such-tool-4711');
  });
});
