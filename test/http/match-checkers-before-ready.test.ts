// Issue #18: a server says `matching: ready` only once a match costs what a warm one does. The checker of a match's
// body was compiled by the first POST /v1/match after ready (~35 ms of CPU at load 11, ajv's code cold: 41 ms of the
// main thread for that first match against ~6 ms for the next, at 100,000 tools), which the promise of "ready" forbids.
import { afterEach, describe, expect, it } from 'vitest';
import { bodyCheckerCompiled } from '../../src/request-checks/body-validator.js';
import { request, startEchoItServer } from '../helpers/http-server.js';

let server: Awaited<ReturnType<typeof startEchoItServer>> | undefined;
afterEach(async () => {
  await server?.cleanup();
  server = undefined;
});

describe('a server whose /healthz says matching: ready', () => {
  it('has compiled the checkers of the bodies that ask for a match, and the first match is answered', async () => {
    server = await startEchoItServer();
    while ((await request(server, 'GET', '/healthz')).json.matching !== 'ready') await new Promise((resolve) => setTimeout(resolve, 20));
    expect(bodyCheckerCompiled('MatchRequest')).toBe(true);
    expect(bodyCheckerCompiled('CallRequest')).toBe(true);
    const match = await request(server, 'POST', '/v1/match', { body: { intent: 'echo ok' } });
    expect(match.status).toBe(200);
    expect(match.json.candidates[0].name).toBe('echo-it');
    // a body the checker refuses is still refused as before
    expect((await request(server, 'POST', '/v1/match', { body: { intent: 'echo ok', limit: 'two' } })).status).toBe(400);
  }, 60_000);
});
