import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startPolicyGateway, WRITES_NEED_AN_APPROVER } from './support.js';

// A real `hldp serve` over a real SQLite store. GET /v1/approvals read and parsed every request of the history that
// the page skipped (`offset`) or that the asker may not see — the whole history, for one small answer, in one
// synchronous run (review J F1). Here the params of those rows are made unreadable in the store: a page that reads
// only the rows it returns answers; one that reads the others fails.
const REQUESTS = 6;

let gateway: PolicyGateway;
const ids: string[] = [];

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER);
  for (let index = 0; index < REQUESTS; index += 1) {
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: `note-${index}.txt`, content: `${index}` } } });
    expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
    ids.push(pending.body.id);
    expect((await api(gateway.url, 'POST', `/v1/approvals/${pending.body.id}/cancel`, { who: 'bot', body: {} })).status).toBe(200);
  }
  // every request but the oldest gets params no reader can parse
  const database = new BetterSqlite3(join(gateway.folder, 'data', 'receipts.db'));
  database.prepare(`UPDATE approvals SET params = 'not json' WHERE id IN (${ids.slice(1).map(() => '?').join(', ')})`).run(...ids.slice(1));
  database.close();
}, 60_000);
afterAll(() => gateway?.stop());

describe('GET /v1/approvals over a history it does not return', () => {
  describe('when the page skips the newer requests with offset', () => {
    it('returns the older one without reading those it skipped', async () => {
      const page = await api(gateway.url, 'GET', `/v1/approvals?offset=${REQUESTS - 1}&limit=1`, { who: 'bot' });
      expect(page.status).toBe(200);
      expect(page.body.approvals.map((approval: { id: string }) => approval.id)).toEqual([ids[0]]);
      expect(page.body).toMatchObject({ offset: REQUESTS - 1, next_offset: null });
    });

    it('counts the offset over what an approver may see', async () => {
      const page = await api(gateway.url, 'GET', `/v1/approvals?offset=${REQUESTS - 1}&caller=bot`, { who: 'alice' });
      expect(page.status).toBe(200);
      expect(page.body.approvals.map((approval: { id: string }) => approval.id)).toEqual([ids[0]]);
    });
  });

  describe('when the asker may see none of the requests', () => {
    it('answers an empty page without reading them', async () => {
      const page = await api(gateway.url, 'GET', '/v1/approvals?caller=bot', { who: 'lead' });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ approvals: [], next_offset: null });
    });
  });
});
