import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startEchoItServer } from '../helpers/http-server.js';

// POST /v1/scan and POST /v1/sessions/:id/turn took any body, malformed JSON included, and answered 200 (review R, R1)

let server: Awaited<ReturnType<typeof startEchoItServer>>;
beforeAll(async () => (server = await startEchoItServer()));
afterAll(() => server.cleanup());

const json = { 'content-type': 'application/json' };

describe.each([
  ['POST /v1/scan', async () => '/v1/scan'],
  [
    'POST /v1/sessions/:id/turn',
    async () => {
      const opened = await request(server, 'POST', '/v1/sessions', { body: {} });
      return `/v1/sessions/${(opened.json as { id: string }).id}/turn`;
    },
  ],
])('%s', (_route, path) => {
  it('answers 400 MALFORMED_JSON to a body that is not JSON', async () => {
    const response = await request(server, 'POST', await path(), { raw: '{bad', headers: json });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'MALFORMED_JSON' });
  });

  it('answers 400 INVALID_REQUEST naming a field it does not take', async () => {
    const response = await request(server, 'POST', await path(), { body: { x: 1 } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining("unknown field 'x'") });
  });

  it('answers 400 INVALID_REQUEST to a list', async () => {
    const response = await request(server, 'POST', await path(), { body: [] });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('takes no body, an empty JSON body, or {}', async () => {
    expect((await request(server, 'POST', await path())).status).toBe(200);
    expect((await request(server, 'POST', await path(), { raw: '', headers: json })).status).toBe(200);
    expect((await request(server, 'POST', await path(), { body: {} })).status).toBe(200);
  });
});
