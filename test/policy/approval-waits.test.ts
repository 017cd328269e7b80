import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startPolicyGateway, TOKENS, WRITES_NEED_AN_APPROVER } from './support.js';

// An agent held 1,000 long-polls on its own request, each polling the store 4 times a second (review E5): an agent
// now holds at most 16 waits at once, as many as event streams.

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER);
});
afterAll(() => gateway?.stop());

describe('waits on an approval request (GET /v1/approvals/:id?wait=)', () => {
  it('holds 16 of one agent at once and refuses the rest, 429 TOO_MANY_WAITS', async () => {
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'wait.txt', content: 'x' } } });
    expect(pending.status).toBe(202);
    const id = pending.body.id as string;
    let answered = 0;
    let fourAnswered: () => void = () => undefined;
    const refusedFour = new Promise<void>((resolve) => (fourAnswered = resolve));
    const waits = Array.from({ length: 20 }, async () => {
      const response = await fetch(`${gateway.url}/v1/approvals/${id}?wait=60`, { headers: { authorization: `Bearer ${TOKENS.bot}` } });
      const body = (await response.json()) as { code?: string; error: string };
      if ((answered += 1) === 4) fourAnswered();
      return { status: response.status, body };
    });
    // the four refused answer at once; the sixteen held answer when the request is decided
    await refusedFour;
    expect((await api(gateway.url, 'POST', `/v1/approvals/${id}/deny`, { who: 'alice', body: {} })).status).toBe(200);
    const answers = await Promise.all(waits);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(16);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(4);
    expect(refused[0]!.body).toMatchObject({ code: 'TOO_MANY_WAITS' });
    expect(refused[0]!.body.error).toContain("principal 'bot' already waits on 16 approval requests");
  });
});
