import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { api, type PolicyGateway, startPolicyGateway, TOKENS, type Who, WRITES_NEED_AN_APPROVER } from './support.js';

// An agent's pending requests were rendered whole on the approver's page: 100 requests of 1 MB params made a 100 MB
// page and froze the gateway while it was built (review E13). A page now shows a bounded number of requests, each
// request's params cut to a preview with a link to the whole request.
const CONTENT = 'A'.repeat(200_000);

let gateway: PolicyGateway;
const filed: string[] = [];

const signIn = (who: Who): Promise<string> => signInToConsole(gateway.url, TOKENS[who]);

async function pageOf(path: string, cookie: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${gateway.url}${path}`, { headers: { cookie } });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER);
  // oldest first: 10 of the admin's, then 15 of the agent's
  for (const [who, count] of [['admin', 10], ['bot', 15]] as const) {
    for (let index = 0; index < count; index += 1) {
      const pending = await api(gateway.url, 'POST', '/v1/call', { who, body: { tool: 'file-write', params: { path: `big-${who}-${index}.txt`, content: CONTENT } } });
      expect(pending.status).toBe(202);
      filed.push(pending.body.id as string);
    }
  }
}, 60_000);
afterAll(() => gateway?.stop());

describe('the console approvals page, for many pending requests with large params', () => {
  it('shows one page of requests, each with its params cut and a link to the whole', async () => {
    const cookie = await signIn('alice');
    const first = await pageOf('/console/approvals', cookie);
    expect(first.status).toBe(200);
    expect(first.text.length).toBeLessThan(500_000);
    expect(first.text.split('data-approval=').length - 1).toBe(20);
    expect(first.text).toContain('Requests 1–20, newest first. More wait on the next page.');
    // 200,000 characters of content, less the 4,096 shown, and the few of the other params
    expect(first.text.match(/The params are cut here: 19[56],\d{3} more characters\./g)).toHaveLength(20);
    expect(first.text).toContain(`<a href="/console/approvals/${encodeURIComponent(filed.at(-1)!)}">Read the whole request</a>`);
    expect(first.text).toContain('<a href="/console/approvals?offset=20">Older requests →</a>');
  });

  it('reaches the oldest requests on the next page', async () => {
    const cookie = await signIn('alice');
    const older = await pageOf('/console/approvals?offset=20', cookie);
    for (const id of filed.slice(0, 5)) expect(older.text).toContain(`data-approval="${id}"`);
    expect(older.text).toContain('Requests 21–25, newest first.');
    expect(older.text).not.toContain('Older requests');
  });

  it('shows one request whole on its own page, with the decision buttons', async () => {
    const cookie = await signIn('alice');
    const whole = await pageOf(`/console/approvals/${encodeURIComponent(filed[0]!)}`, cookie);
    expect(whole.status).toBe(200);
    expect(whole.text).toContain(CONTENT);
    expect(whole.text).not.toContain('The params are cut here');
    expect(whole.text).toContain('value="approve"');
  });

  it('answers 404 for a request the viewer may not see', async () => {
    const lead = await signIn('lead');
    expect((await pageOf(`/console/approvals/${encodeURIComponent(filed[0]!)}`, lead)).status).toBe(404);
  });
});
