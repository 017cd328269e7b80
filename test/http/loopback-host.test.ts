import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestServer } from '../helpers/http-server.js';

let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  // the main job's setting: loopback, no token
  server = await startTestServer('native-repo');
});
afterAll(() => server.cleanup());

/** A request whose Host header is chosen, as a page that rebound its name to 127.0.0.1 would send it. */
function requestWithHost(host: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: body === undefined ? 'GET' : 'POST', headers: { host, 'content-type': 'application/json', origin: `http://${host}` } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('a gateway listening on loopback without a token', () => {
  describe('when a request names another host (DNS rebinding)', () => {
    it('answers 403 and runs nothing', async () => {
      const port = new URL(server.url).port;
      const marker = `rebound-${Date.now()}`;
      const call = await requestWithHost(`attacker.example:${port}`, '/v1/call', { tool: 'shell-exec', params: { cmd: `echo ${marker}` } });
      expect(call.status).toBe(403);
      expect(call.json).toMatchObject({ code: 'FORBIDDEN_HOST' });
      expect((await requestWithHost(`attacker.example:${port}`, '/v1/receipts')).status).toBe(403);
      // a marker call through this machine's name shows the receipts answer holds calls at all
      await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo admitted' } } });
      const receipts = await request(server, 'GET', '/v1/receipts?limit=100');
      expect(receipts.status).toBe(200);
      expect(JSON.stringify(receipts.json)).toContain('admitted');
      expect(JSON.stringify(receipts.json)).not.toContain(marker);
    });
  });

  describe('when a request names this machine', () => {
    it.each(['localhost', '127.0.0.1', '[::1]'])('answers %s', async (name) => {
      const port = new URL(server.url).port;
      const response = await requestWithHost(`${name}:${port}`, '/v1/call', { tool: 'shell-exec', params: { cmd: 'echo hello' } });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ ok: true, output: 'hello\n' });
    });
  });
});
