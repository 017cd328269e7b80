import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpSpec } from '../../src/core/index.js';
import { execute, type ExecutionContext } from '../../src/executors/index.js';
import { runs } from '../helpers/property-runs.js';
import { loadStarterTool, makeToolDefinition } from './support/tool-definitions.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
let context: ExecutionContext;
const API_TOKEN = 'api-token-that-must-stay-secret';

// A real HTTP server: /status/<code> answers that status, /hang never answers, /drop hangs up, anything else echoes the request.
beforeAll(async () => {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = request.url ?? '';
    if (url.startsWith('/api/hang')) return;
    // the request was read whole, then the server went away without an answer
    if (url.startsWith('/api/drop')) return void request.socket.destroy();
    const status = /^\/api\/status\/(\d+)/.exec(url);
    if (status) {
      response.writeHead(Number(status[1]), { 'content-type': 'application/json' }).end('{"message":"not here"}');
      return;
    }
    if (url.startsWith('/api/big')) {
      response.end('a'.repeat(100_000) + 'END');
      return;
    }
    const seen: Seen = { method: request.method ?? '', url, headers: request.headers, body: Buffer.concat(chunks).toString() };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  context = { apis: { default: { url: base, token: API_TOKEN } } };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function apiTool(http: HttpSpec, constraints = {}) {
  return makeToolDefinition({ executor: 'hldp-api', http, constraints });
}

async function seen(http: HttpSpec, params: Record<string, unknown>): Promise<Seen> {
  const result = await execute(apiTool(http), params, context);
  expect(result).toMatchObject({ ok: true, code: null });
  return JSON.parse(result.output) as Seen;
}

describe('hldp-api executor', () => {
  describe('when the path has placeholders', () => {
    it.each([
      ['{p} encodes a slash and spaces', '/items/{id}', { id: 'a/b c' }, '/api/items/a%2Fb%20c'],
      ['{p} encodes ? and #', '/items/{id}', { id: 'x?y#z' }, '/api/items/x%3Fy%23z'],
      ['{+p} keeps the slashes', '/files/{+path}', { path: 'docs/read me.md' }, '/api/files/docs/read%20me.md'],
      ['{+p} with a leading slash', '{+path}', { path: '/v1/status' }, '/api/v1/status'],
      ['a number', '/items/{id}', { id: 42 }, '/api/items/42'],
    ])('sends the request to the encoded path when %s', async (_case, path, params, url) => {
      expect((await seen({ path }, params)).url).toBe(url);
    });

    it.each(['../admin', 'a/../../admin', './x', 'a/./b'])('returns INVALID_PARAMS and sends nothing for {+p} = %s', async (value) => {
      const result = await execute(apiTool({ path: '/files/{+path}' }), { path: value }, context);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS', error: expect.stringContaining("'..'") });
    });

    it.each([
      [{ project: '..', id: '..' }],
      [{ project: 'p1', id: '..' }],
      [{ project: '.', id: '42' }],
    ])('returns INVALID_PARAMS and sends nothing for a {p} that is a dot segment: %j', async (params) => {
      const result = await execute(apiTool({ path: '/projects/{project}/items/{id}' }), params, context);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS', error: expect.stringContaining("may not be '.' or '..'") });
    });

    it('keeps every request inside the template: the path the server sees starts with its literal part, one segment a {p}', async () => {
      const value = fc.oneof(fc.constantFrom('.', '..', '...', '%2e', '%2e%2e', '.%2e', '\\..', '..\\', '/', '?', '#', ' '), fc.string({ maxLength: 6 }), fc.integer());
      await fc.assert(fc.asyncProperty(value, value, async (project, id) => {
        const result = await execute(apiTool({ path: '/projects/{project}/items/{id}' }), { project, id }, context);
        if (!result.ok) {
          expect(result.code).toBe('INVALID_PARAMS');
          return;
        }
        const { url } = JSON.parse(result.output) as Seen;
        expect(url).toMatch(/^\/api\/projects\/[^/?#]*\/items\/[^/?#]*$/);
      }), { numRuns: runs(200) });
    });

    it('returns INVALID_PARAMS naming a missing path parameter', async () => {
      const result = await execute(apiTool({ path: '/items/{id}' }), {}, context);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS', error: expect.stringContaining("parameter 'id'") });
    });
  });

  describe('when the query and body are built', () => {
    it('sends each listed parameter in the query, an object by its keys, a list by repeated keys', async () => {
      const request = await seen({ path: '/search', query: ['q', 'filter', 'tag', 'absent'] }, { q: 'a&b=c', filter: { since: '2026-01-01', n: 5 }, tag: ['x', 'y'] });
      expect(request.url).toBe('/api/search?q=a%26b%3Dc&since=2026-01-01&n=5&tag=x&tag=y');
    });

    it('sends the listed parameters as one JSON object', async () => {
      const request = await seen({ method: 'POST', path: '/items', body: ['title', 'done'] }, { title: 'x', done: false, other: 1 });
      expect(request).toMatchObject({ method: 'POST', body: '{"title":"x","done":false}' });
      expect(request.headers['content-type']).toBe('application/json');
    });

    it('sends one parameter’s value as the whole body', async () => {
      const request = await seen({ method: 'PUT', path: '/items', body: '{item}' }, { item: [1, { a: 2 }] });
      expect(request).toMatchObject({ method: 'PUT', body: '[1,{"a":2}]' });
    });

    it('sends the definition headers and the configured auth, which wins', async () => {
      const request = await seen({ path: '/x', headers: { 'X-Trace': 'trace-{id}', Authorization: 'Bearer from-the-definition' } }, { id: '7' });
      expect(request.headers['x-trace']).toBe('trace-7');
      expect(request.headers.authorization).toBe('Bearer [REDACTED]');
    });
  });

  describe('when the starter tool http-request runs', () => {
    it('returns the raw body of a GET with the query object', async () => {
      const result = await execute(loadStarterTool('http-request'), { path: '/v1/status', query: { verbose: true } }, context);
      expect(result).toMatchObject({ ok: true, code: null, exit_code: null });
      expect(JSON.parse(result.output)).toMatchObject({ method: 'GET', url: '/api/v1/status?verbose=true' });
    });

    it('returns an empty output for a HEAD request', async () => {
      const result = await execute(loadStarterTool('http-request'), { path: '/v1/status', method: 'HEAD' }, context);
      expect(result).toMatchObject({ ok: true, output: '', output_bytes: 0 });
    });

    it('returns the configured token redacted wherever the server echoed it', async () => {
      const result = await execute(loadStarterTool('http-request'), { path: '/echo' }, context);
      expect(result.output).not.toContain(API_TOKEN);
      expect(JSON.parse(result.output).headers.authorization).toBe('Bearer [REDACTED]');
    });
  });

  describe('when the server answers a non-2xx status', () => {
    it.each([404, 409, 500])('returns HTTP_ERROR keeping status %i and the body', async (status) => {
      const result = await execute(apiTool({ path: `/status/${status}` }), {}, context);
      expect(result).toMatchObject({
        ok: false,
        code: 'HTTP_ERROR',
        output: '{"message":"not here"}',
        error: `HTTP ${status}: {"message":"not here"}`,
        timed_out: false,
      });
    });
  });

  describe('when the body is larger than the cap', () => {
    it('returns head and tail within the cap and counts the cut', async () => {
      const result = await execute(apiTool({ path: '/big' }, { max_output_bytes: 1024 }), {}, context);
      expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(1024);
      expect(result.output.endsWith('aEND')).toBe(true);
      expect(result).toMatchObject({ ok: true, output_bytes: 100_003 });
      expect(result.cut_bytes).toBeGreaterThan(98_000);
    });
  });

  describe('when the call cannot complete', () => {
    it('returns TIMEOUT when the server does not answer in time', async () => {
      const result = await execute(apiTool({ path: '/hang' }, { timeout_ms: 100 }), {}, context);
      expect(result).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true });
    });

    it('returns CONNECTION_FAILED with the raw error when nothing listens', async () => {
      const result = await execute(apiTool({ path: '/x' }), {}, { apis: { default: { url: 'http://127.0.0.1:1' } } });
      expect(result).toMatchObject({ ok: false, code: 'CONNECTION_FAILED', error: expect.stringContaining('ECONNREFUSED') });
      expect(result.error).toContain('nothing was sent (no connection was made), so nothing ran: safe to retry');
    });

    it('returns CONNECTION_FAILED saying the request was sent when the server hangs up after reading it (review userW, W6)', async () => {
      const result = await execute(apiTool({ path: '/drop', method: 'POST' }), {}, context);
      expect(result).toMatchObject({ ok: false, code: 'CONNECTION_FAILED' });
      expect(result.error).toContain('the request was sent and the connection broke before the whole answer came: the server may have acted on it; check before retrying');
      expect(result.error).not.toContain('safe to retry');
    });

    it('returns EXECUTOR_MISCONFIGURED naming the config key and variable when the API has no base URL', async () => {
      const result = await execute(apiTool({ path: '/x', api: 'hldp' }), {}, context);
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
      expect(result.error).toContain('apis.hldp.url');
      expect(result.error).toContain('HLDP_API_HLDP_URL');
    });
  });
});
