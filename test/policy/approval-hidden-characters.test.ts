import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { api, type PolicyGateway, startPolicyGateway, TOKENS, WRITES_NEED_AN_APPROVER } from './support.js';

// What a person reads before approving must be what runs: an agent's params with a right-to-left override showed the
// approver, in the console, a path written backwards from the one the tool gets (the CLI escaped it; the console did not).

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER);
});
afterAll(() => gateway?.stop());

describe('the console approvals page, for params that hide or reorder text', () => {
  it('shows each such character as its marked escape, never as itself', async () => {
    // reads as "notes/txt.exe" with the override, and the tag characters spell "hi", which no one sees
    const path = 'notes/\u202eexe.txt';
    const content = 'ok\u{e0068}\u{e0069}\u200b';
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content } } });
    expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
    const cookie = await signInToConsole(gateway.url, TOKENS.admin);
    const page = await (await fetch(`${gateway.url}/console/approvals`, { headers: { cookie } })).text();
    const item = page.split('data-approval=').find((part) => part.startsWith(`"${pending.body.id as string}"`))!;
    expect(item).toBeDefined();
    expect(item).not.toMatch(/[\u202e\u200b\u{e0000}-\u{e007f}]/u);
    expect(item).toContain('notes/<span class="hidden-character" title="a character that hides or reorders text">\\u202e</span>exe.txt');
    expect(item).toContain('ok<span class="hidden-character" title="a character that hides or reorders text">\\u{e0068}</span>');
    expect(item).toContain('\\u200b</span>');
    // what runs is what was sent: the API gives the params as they are
    expect((await api(gateway.url, 'GET', `/v1/approvals/${pending.body.id as string}`, { who: 'admin' })).body.approval.params).toMatchObject({ path, content });
  });
});
