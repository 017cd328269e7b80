import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startPolicyGateway, WRITES_NEED_AN_APPROVER } from './support.js';

// One agent filed 1,000 requests and buried another caller's off the approvers' page (review E6): a caller may now
// have approvals.max_pending_per_caller requests waiting at once, and the next call is refused, 429, saying why.

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER, { config: 'approvals:\n  max_pending_per_caller: 3\n' });
});
afterAll(() => gateway?.stop());

const write = (who: 'bot' | 'admin', path: string) => api(gateway.url, 'POST', '/v1/call', { who, body: { tool: 'file-write', params: { path, content: 'x' } } });

describe('approval requests per caller', () => {
  it('refuses a caller past its most pending requests, 429 TOO_MANY_PENDING, and takes others\' requests', async () => {
    const filed: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const pending = await write('bot', `spam-${index}.txt`);
      expect(pending.status).toBe(202);
      filed.push(pending.body.id as string);
    }
    const refused = await write('bot', 'spam-3.txt');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'TOO_MANY_PENDING', tool: 'file-write', pending: 3, most: 3 });
    expect(refused.body.error).toContain("'bot' already has 3 requests waiting for approval, the most one caller may have (approvals.max_pending_per_caller: 3); nothing has run");
    expect((await api(gateway.url, 'GET', '/v1/approvals?status=pending', { who: 'admin' })).body.approvals).toHaveLength(3);

    expect((await write('admin', 'release-notes.txt')).status).toBe(202);

    // once one is decided (here withdrawn), the caller may ask again
    expect((await api(gateway.url, 'POST', `/v1/approvals/${filed[0]!}/cancel`, { who: 'bot', body: {} })).status).toBe(200);
    expect((await write('bot', 'spam-4.txt')).status).toBe(202);
  });
});
