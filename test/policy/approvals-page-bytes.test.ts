import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startPolicyGateway, WRITES_NEED_AN_APPROVER } from './support.js';

// A real `hldp serve` over a real SQLite store: an agent's pending writes each hold ~900 KB of params. GET
// /v1/approvals?limit=1000 read, parsed and sent all of them at once (100 MB with a hundred; found in review F1).
const REQUESTS = 8;
const MIB = 1024 * 1024;

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER);
  for (let index = 0; index < REQUESTS; index += 1) {
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: `big-${index}.txt`, content: `${index}`.repeat(900_000) } } });
    expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
  }
}, 60_000);
afterAll(() => gateway?.stop());

describe('GET /v1/approvals over requests with large params', () => {
  it('ends a page early at its byte bound, says so, and next_offset reaches every request once', async () => {
    const first = await fetch(`${gateway.url}/v1/approvals?limit=1000`, { headers: { authorization: 'Bearer bot-token-0123456789abcdef' } });
    const text = await first.text();
    const page = JSON.parse(text);
    expect(first.status).toBe(200);
    expect(text.length).toBeLessThan(6 * MIB);
    expect(page.approvals.length).toBeGreaterThan(0);
    expect(page.approvals.length).toBeLessThan(REQUESTS);
    expect(page).toMatchObject({ limit: 1000, offset: 0, next_offset: page.approvals.length, max_bytes: 4 * MIB, ended_early: true });
    // the requests a page holds are whole: what GET /v1/approvals/:id shows
    expect(page.approvals[0].params.content).toHaveLength(900_000);

    const seen: string[] = page.approvals.map((approval: { id: string }) => approval.id);
    let next: number | null = page.next_offset;
    while (next !== null) {
      const more = await api(gateway.url, 'GET', `/v1/approvals?limit=1000&offset=${next}`, { who: 'bot' });
      seen.push(...more.body.approvals.map((approval: { id: string }) => approval.id));
      next = more.body.next_offset;
    }
    expect(seen).toHaveLength(REQUESTS);
    expect(new Set(seen).size).toBe(REQUESTS);
  });

  it('answers a page that fits as before, for an admin too', async () => {
    const page = await api(gateway.url, 'GET', '/v1/approvals?limit=2', { who: 'admin' });
    expect(page.body.approvals).toHaveLength(2);
    expect(page.body).toMatchObject({ limit: 2, offset: 0, next_offset: 2 });
    expect(page.body.ended_early).toBeUndefined();
  });
});
