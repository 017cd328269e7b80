import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startEchoItServer } from '../helpers/http-server.js';

// Review Z8, Z8-9: POST /v1/scan is open to every principal, and requests made while a rescan runs share the next one;
// but a loop of them ran rescans back to back without end (4 loops: 305 scans of a 10,000-tool folder in 20 s). One
// principal now starts at most 10 rescans a minute; a request that joins a waiting rescan costs nothing
// (test/policy/scan-requests.test.ts: 41 at once are all answered).

let server: Awaited<ReturnType<typeof startEchoItServer>>;
beforeAll(async () => {
  server = await startEchoItServer();
});
afterAll(async () => {
  await server?.cleanup();
});

describe('POST /v1/scan in a loop', () => {
  it('serves a principal 10 rescans, then answers 429 TOO_MANY_SCANS with Retry-After', async () => {
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof request>> | undefined;
    // one after another, each answered before the next: every one would start a rescan of its own. The bucket refills
    // (one every 6 s), so a slow machine may be served a few more before the first refusal
    for (let attempt = 0; attempt < 40 && !refused; attempt += 1) {
      const answer = await request(server, 'POST', '/v1/scan');
      statuses.push(answer.status);
      if (answer.status !== 200) refused = answer;
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect({ status: refused?.status, code: refused?.json?.code }).toEqual({ status: 429, code: 'TOO_MANY_SCANS' });
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused!.json.error).toContain("principal 'local'");
    // what is served is unchanged: a call still runs
    expect((await request(server, 'POST', '/v1/call', { body: { tool: 'echo-it', params: {} } })).json).toMatchObject({ ok: true });
  }, 120_000);
});
