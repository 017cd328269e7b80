import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startEchoItServer } from '../helpers/http-server.js';

// A body naming 20,000 unknown fields was answered with every one listed twice, 3.9 MB for a 300 KB body (review R, R10)

let server: Awaited<ReturnType<typeof startEchoItServer>>;
beforeAll(async () => (server = await startEchoItServer()));
afterAll(() => server.cleanup());

describe('a 400 for a body with many problems', () => {
  it.each(['/v1/match', '/v1/call', '/v1/scan'])('POST %s names the first fields and counts the rest, in a few KiB', async (path) => {
    const body: Record<string, unknown> = path === '/v1/match' ? { intent: 'show the log' } : path === '/v1/call' ? { tool: 'echo-it' } : {};
    for (let field = 0; field < 20_000; field += 1) body[`unknown_field_${field}`] = 1;
    const response = await request(server, 'POST', path, { body });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining("'unknown_field_0'") });
    expect(response.json.error).toMatch(/and 1999[5-9] more/);
    expect(Buffer.byteLength(response.text)).toBeLessThan(16 * 1024);
  });

  it('clips a field name of 100 KB', async () => {
    const response = await request(server, 'POST', '/v1/match', { body: { intent: 'show the log', ['n'.repeat(100_000)]: 1 } });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/^unknown field 'n+… \(1000\d\d characters\)/);
    expect(Buffer.byteLength(response.text)).toBeLessThan(16 * 1024);
  });
});
