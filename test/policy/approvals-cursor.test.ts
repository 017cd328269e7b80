import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { api, startPolicyGateway, type PolicyGateway } from './support.js';

// GET /v1/approvals paged by `offset` only: counted from the newest request at each page, so a request filed between
// two pages shows the last one of the first page again, and each page walks every entry it skips (review J). A page
// now gives next_cursor, which continues after the last request it shows; offset still works as documented.
const RULE = ['name: writes', 'author: TEST-001', 'why: a person reviews every write', 'approval:', '  - tools: [file-write]', '    decision: approve', '    approvers: { roles: [approver] }'].join('\n');

let gateway: PolicyGateway;
let database: string;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/writes.hdlp': RULE });
  database = join(gateway.folder, 'data', 'receipts.db');
}, 60_000);
afterAll(() => gateway.stop());

/** Files a request as bot and cancels it (the pending cap stays free); resolves to its id. */
async function fileOne(index: number, url = gateway.url): Promise<string> {
  const pending = await api(url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: `note-${index}.txt`, content: `${index}` } } });
  expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
  expect((await api(url, 'POST', `/v1/approvals/${pending.body.id}/cancel`, { who: 'bot', body: {} })).status).toBe(200);
  return pending.body.id as string;
}

const idsOf = (body: { approvals: Array<{ id: string }> }): string[] => body.approvals.map((approval) => approval.id);

describe('GET /v1/approvals paged with next_cursor', () => {
  it('continues after the last request shown, even when new requests are filed between pages', async () => {
    const filed: string[] = [];
    for (let index = 0; index < 5; index += 1) filed.push(await fileOne(index));
    const newestFirst = [...filed].reverse();

    const first = await api(gateway.url, 'GET', '/v1/approvals?caller=bot&limit=2', { who: 'alice' });
    expect(first.status).toBe(200);
    expect(idsOf(first.body)).toEqual(newestFirst.slice(0, 2));
    expect(first.body).toMatchObject({ offset: 0, next_offset: 2, next_cursor: expect.any(String) });
    // filed now: an offset page counts it, the cursor does not
    const late = await fileOne(5);
    const byOffset = await api(gateway.url, 'GET', `/v1/approvals?caller=bot&limit=2&offset=${first.body.next_offset}`, { who: 'alice' });
    expect(idsOf(byOffset.body)).toEqual([newestFirst[1], newestFirst[2]]);

    const seen = [...idsOf(first.body)];
    let cursor: string | null = first.body.next_cursor;
    while (cursor !== null) {
      const page = await api(gateway.url, 'GET', `/v1/approvals?caller=bot&limit=2&cursor=${cursor}`, { who: 'alice' });
      expect(page.status).toBe(200);
      expect(page.body).not.toHaveProperty('next_offset');
      expect(page.body.cursor).toBe(cursor);
      seen.push(...idsOf(page.body));
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(newestFirst);
    expect(seen).not.toContain(late);
  });

  it('reads none of the requests before the cursor', async () => {
    const page = await api(gateway.url, 'GET', '/v1/approvals?caller=bot&limit=1', { who: 'bot' });
    const newest = idsOf(page.body)[0]!;
    // the request the cursor names, and every newer one, become unreadable: a page after it never reads them
    const raw = new BetterSqlite3(database);
    raw.prepare("UPDATE approvals SET params = 'not json' WHERE id = ?").run(newest);
    raw.close();
    const next = await api(gateway.url, 'GET', `/v1/approvals?caller=bot&limit=1&cursor=${page.body.next_cursor}`, { who: 'bot' });
    expect(next.status).toBe(200);
    expect(idsOf(next.body)).toHaveLength(1);
    expect(idsOf(next.body)[0]).not.toBe(newest);
  });

  it.each([
    ['a cursor it did not give', 'cursor=bm90LWEtY3Vyc29y', /cursor.*next_cursor/],
    ['a cursor and an offset together', `cursor=${Buffer.from(JSON.stringify([1, 'apr_x'])).toString('base64url')}&offset=2`, /not both/],
  ])('answers 400 INVALID_REQUEST to %s', async (_case, query, message) => {
    const answer = await api(gateway.url, 'GET', `/v1/approvals?${query}`, { who: 'alice' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringMatching(message) });
  });
});

describeWithPostgres('GET /v1/approvals paged with next_cursor, on PostgreSQL', () => {
  let served: PolicyGateway;
  let database: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    database = await createTestDatabase();
    served = await startPolicyGateway({ 'policies/writes.hdlp': RULE }, { env: { HLDP_STORE_URL: database.url } });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await database?.drop();
  });

  it('walks every request once, newest first, with one filed between pages', async () => {
    const filed: string[] = [];
    for (let index = 0; index < 5; index += 1) filed.push(await fileOne(index, served.url));
    const seen: string[] = [];
    let cursor: string | null | undefined;
    let late: string | undefined;
    while (cursor !== null) {
      const page = await api(served.url, 'GET', `/v1/approvals?caller=bot&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { who: 'alice' });
      expect(page.status).toBe(200);
      seen.push(...idsOf(page.body));
      cursor = page.body.next_cursor;
      late ??= await fileOne(9, served.url);
    }
    expect(seen).toEqual([...filed].reverse());
    expect(seen).not.toContain(late);
  });
});
