import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { api, type PolicyGateway, startPolicyGateway, TOKENS, type Who } from './support.js';

// Review finding: who may see and decide a request disagreed between the list (by role), the read and decide (by the
// request's rule) and the console (approver role first). A rule here names lead (an agent, no approver role) alone.
const NAMED = ['name: named', 'author: TEST-001', 'why: lead reviews these writes', 'approval:', '  - tools: [file-write]', '    decision: approve', '    approvers: { principals: [lead] }'].join('\n');

let gateway: PolicyGateway;
let id: string;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/named.hdlp': NAMED });
  const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'named.txt', content: 'x\n' } } });
  expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
  id = pending.body.id as string;
});
afterAll(() => gateway?.stop());

async function signIn(who: Who): Promise<{ cookie: string; csrf: string }> {
  const cookie = await signInToConsole(gateway.url, TOKENS[who]);
  return { cookie, csrf: (await consoleCsrf(gateway.url, cookie)).csrf };
}

/** What the list, the read and the console say of the request for `who`. */
async function seenBy(who: Who): Promise<{ listed: boolean; read: number; console: boolean; buttons: boolean }> {
  const listed = (await api(gateway.url, 'GET', '/v1/approvals?status=pending', { who })).body.approvals.some((entry: { id: string }) => entry.id === id);
  const read = (await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who })).status;
  const { cookie } = await signIn(who);
  const page = await (await fetch(`${gateway.url}/console/approvals`, { headers: { cookie } })).text();
  const item = page.split('data-approval=').find((part) => part.startsWith(`"${id}"`)) ?? '';
  return { listed, read, console: item !== '', buttons: item.includes('Approve and run') };
}

describe('who may see and decide an approval request whose rule names its approver', () => {
  it.each<[Who, { listed: boolean; read: number; console: boolean; buttons: boolean }]>([
    ['lead', { listed: true, read: 200, console: true, buttons: true }],
    ['bob', { listed: false, read: 404, console: false, buttons: false }],
    ['bot', { listed: true, read: 200, console: true, buttons: false }],
    // an admin reads every request, and decides those its rule lets it (this one names lead alone, so the API refuses admin too)
    ['admin', { listed: true, read: 200, console: true, buttons: false }],
  ])('the list, the read and the console agree for %s', async (who, expected) => {
    expect(await seenBy(who)).toEqual(expected);
  });

  it('lets the named approver decide it in the console, and refuses one the rule does not name as the API does', async () => {
    const origin = new URL(gateway.url).origin;
    const decide = async (who: Who) => {
      const { cookie, csrf } = await signIn(who);
      return fetch(`${gateway.url}/console/approvals/${encodeURIComponent(id)}/decide`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie }, body: new URLSearchParams({ _csrf: csrf, decision: 'approve' }) });
    };
    // refused as the API refuses it, in the console's words: back to the approvals page, as for a request that does not exist
    const refused = await decide('bob');
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toMatch(/notice=no%20approval%20request/);
    expect((await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'bob' })).status).toBe(404);
    const decided = await decide('lead');
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toMatch(/^\/console\/receipts\//);
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body).toMatchObject({ approval: { status: 'approved', decided_by: 'lead' }, receipt: { ok: true } });
  });
});
