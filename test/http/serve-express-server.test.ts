// Issue #18 (http20): `hldp serve` makes its requests and responses with express's prototypes from the start (the
// server of src/http-edge/express-server.ts) instead of `app.listen`'s plain ones that express re-prototyped on each
// request, and its request log does no work when the level hides it. What express gives on top of Node's objects must
// be there all the same: its ETag and 304, HEAD without a body, JSON with its charset and length, the 404 of a path no
// route has, and the request log's line at the info level.
import { finished } from 'node:stream/promises';
import { request as plainRequest } from 'undici';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';

describe('hldp serve', () => {
  describe('when a client uses what express adds to an answer', () => {
    const home = useServiceHome('warn');

    it('answers as express does: an ETag and 304, HEAD without a body, JSON with its charset and length', async () => {
      const server = await home.serve();
      const document = await request(server, 'GET', '/v1/openapi.json');
      expect(document.status).toBe(200);
      const etag = document.headers.get('etag');
      expect(etag).toMatch(/^W\/"[0-9a-f]+-[\w+/=-]+"$/);
      // not fetch: with If-None-Match it adds Cache-Control: no-cache, which asks for the whole answer
      const again = await plainRequest(`${server.url}/v1/openapi.json`, { headers: { 'if-none-match': etag! } });
      expect(again.statusCode).toBe(304);
      expect(await again.body.text()).toBe('');

      const head = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await head.text()).toBe('');

      const call = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo hi' } } });
      expect(call.status).toBe(200);
      expect(call.json.ok).toBe(true);
      expect(call.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(call.headers.get('content-length'))).toBe(Buffer.byteLength(call.text));
      // the security headers every answer carries, and no X-Powered-By
      expect(call.headers.get('x-content-type-options')).toBe('nosniff');
      expect(call.headers.get('x-powered-by')).toBeNull();

      const nowhere = await request(server, 'GET', '/v1/nowhere?x=1');
      expect(nowhere.status).toBe(404);
      expect(nowhere.json).toEqual({ code: 'NOT_FOUND', error: 'no route GET /v1/nowhere; see GET /v1/openapi.json for the routes' });
    });

    it('logs no request line when the level is warn', async () => {
      const server = await home.serve();
      expect((await request(server, 'GET', '/healthz')).status).toBe(200);
      await server.stop();
      await finished(server.child.stderr!);
      expect(server.stderr()).not.toMatch(/"msg":"request"/);
    });
  });

  describe('when the log level is info', () => {
    const home = useServiceHome('info');

    it('logs each answered request once: method, path, status and duration', async () => {
      const server = await home.serve();
      expect((await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo hi' } } })).status).toBe(200);
      expect((await request(server, 'GET', '/v1/nowhere')).status).toBe(404);
      // stopped and its stderr read to the end, so that every line it wrote is here (a line is written once its answer is
      // sent, which the client may read first)
      await server.stop();
      await finished(server.child.stderr!);
      const lines = server.stderr().split('\n').filter((line) => line.includes('"msg":"request"')).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
        { method: 'POST', path: '/v1/call', status: 200 },
        { method: 'GET', path: '/v1/nowhere', status: 404 },
      ]);
      expect(lines.every((line) => typeof line['duration_ms'] === 'number')).toBe(true);
    });
  });
});
