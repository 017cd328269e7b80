import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenToolsRepository, EMAIL_REQUEST } from '../helpers/broken-tools.js';
import { expectDocumented, request, startTestServer } from '../helpers/http-server.js';

// Review userZ, Z8: POST /v1/match and POST /v1/call {intent} of a request that a broken tool of the repository would
// fit answered found: false with "write a new tool": a duplicate of what its author only needs to fix.

let repo: Awaited<ReturnType<typeof brokenToolsRepository>>;
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  repo = await brokenToolsRepository();
  server = await startTestServer(repo.path);
});
afterAll(async () => {
  await server?.cleanup();
  await repo?.cleanup();
});

describe.each([
  ['/v1/match', { intent: EMAIL_REQUEST }],
  ['/v1/call', { intent: EMAIL_REQUEST, context: {} }],
])('POST %s of an intent a broken tool would fit', (route, body) => {
  it('answers found: false naming the broken tool, its file and error, and a suggestion to fix it', async () => {
    const answer = await request(server, 'POST', route, { body });
    expect(answer.status).toBe(200);
    expectDocumented(route, 'POST', answer);
    expect(answer.json).toMatchObject({ found: false, broken: [{ name: 'send-email', path: 'tools/send-email/TOOL.hdlp', error: expect.stringMatching(/^tools\/send-email\/TOOL\.hdlp:\d+:\d+: /) }] });
    expect(answer.json.suggestion).toMatch(/^the tool 'send-email' at tools\/send-email\/TOOL\.hdlp would fit, but its definition is broken.*; fix it rather than writing a new one/);
  });
});

describe('the broken tool itself', () => {
  it('is never a runnable candidate: a call of it is refused as broken, and nothing runs', async () => {
    const called = await request(server, 'POST', '/v1/call', { body: { tool: 'send-email', params: {} } });
    expect(called.status).toBe(409);
    expect(called.json).toMatchObject({ code: 'TOOL_BROKEN' });
  });

  it('is not named beside a confident answer', async () => {
    const answer = await request(server, 'POST', '/v1/match', { body: { intent: 'run a shell command' } });
    expect(answer.json).toMatchObject({ found: true, candidates: [{ name: 'shell-exec' }] });
    expect(answer.json).not.toHaveProperty('broken');
  });
});
