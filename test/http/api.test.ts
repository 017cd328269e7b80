import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDocumented, request, startTestServer } from '../helpers/http-server.js';

const TOKEN = 'test-api-token-0123456789';
let server: Awaited<ReturnType<typeof startTestServer>>;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  server = await startTestServer('native-repo', { HLDP_API_TOKEN: TOKEN });
});
afterAll(() => server.cleanup());

describe('HTTP API', () => {
  describe('when a call is accepted', () => {
    it('runs shell-exec echo hello and answers 200 with the receipt', async () => {
      const response = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo hello' } }, headers: auth });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ ok: true, tool: 'shell-exec', method: 'exec', output: 'hello\n', error: null });
      expectDocumented('/v1/call', 'POST', response);
    });

    it('answers 200 with the receipt of a failure too, its stderr complete', async () => {
      const response = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo broken >&2; exit 2' } }, headers: auth });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ ok: false, error: 'broken\n', exit_code: 2, code: 'NONZERO_EXIT' });
      const stored = await request(server, 'GET', `/v1/receipts/${response.json.id}`, { headers: auth });
      expect(stored.json).toEqual(response.json);
      expectDocumented('/v1/receipts/{id}', 'GET', stored);
    });
  });

  describe('when the starter tool http-request runs with no API configured', () => {
    it("calls the gateway's own API, token included, and returns the raw body", async () => {
      const response = await request(server, 'POST', '/v1/call', { body: { tool: 'http-request', params: { path: '/v1/tools/git-ops' } }, headers: auth });
      expect(response.json).toMatchObject({ ok: true, tool: 'http-request', executor: 'hldp-api' });
      expect(JSON.parse(response.json.output)).toMatchObject({ name: 'git-ops', executor: 'shell' });
      expect(response.text).not.toContain(TOKEN);
    });
  });

  describe('when the body is an intent', () => {
    it('matches and never runs anything', async () => {
      const before = await request(server, 'GET', '/v1/receipts?limit=1000', { headers: auth });
      const response = await request(server, 'POST', '/v1/call', { body: { intent: '查看最近的提交记录' }, headers: auth });
      expect(response.status).toBe(200);
      expect(response.json.candidates[0].name).toBe('git-ops');
      expectDocumented('/v1/call', 'POST', response);
      const after = await request(server, 'GET', '/v1/receipts?limit=1000', { headers: auth });
      expect(after.json.receipts.length).toBe(before.json.receipts.length);
    });
  });

  describe('when an intent matches only part of a tool (issue #11)', () => {
    it('answers found with its confidence and the stage that named the tool', async () => {
      const response = await request(server, 'POST', '/v1/match', { body: { intent: 'call a REST endpoint' }, headers: auth });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ found: true, confidence: expect.stringMatching(/^(high|low)$/), stage: 'lexical' });
      expect(response.json.candidates[0].name).toBe('http-request');
      expectDocumented('/v1/match', 'POST', response);
    });
  });

  describe('when the intent comes with context', () => {
    it('puts the tool context names first among those the intent matches', async () => {
      const plain = await request(server, 'POST', '/v1/match', { body: { intent: 'open the file' }, headers: auth });
      expect(plain.json.candidates[0].name).toBe('file-read');
      const hinted = await request(server, 'POST', '/v1/match', { body: { intent: 'open the file', context: { tools: ['file-write'], cwd: '/srv' } }, headers: auth });
      expect(hinted.json.candidates[0].name).toBe('file-write');
      const viaCall = await request(server, 'POST', '/v1/call', { body: { intent: 'open the file', context: { tools: ['file-write'] } }, headers: auth });
      expect(viaCall.json.candidates[0].name).toBe('file-write');
    });

    it('answers 400 naming context.tools when it is not a list of names', async () => {
      const response = await request(server, 'POST', '/v1/match', { body: { intent: 'edit the file', context: { tools: 'file-write' } }, headers: auth });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining('context.tools') });
    });
  });

  describe('when a tool requires confirmation', () => {
    it('answers 202 with a token, and POST /v1/confirm runs it once', async () => {
      const pending = await request(server, 'POST', '/v1/call', { body: { tool: 'file-write', params: { path: 'confirmed.txt', content: 'yes' } }, headers: auth });
      expect(pending.status).toBe(202);
      expectDocumented('/v1/call', 'POST', pending);
      const confirmed = await request(server, 'POST', '/v1/confirm', { body: { token: pending.json.token }, headers: auth });
      expect(confirmed.status).toBe(200);
      expectDocumented('/v1/confirm', 'POST', confirmed);
      expect(await readFile(join(server.workspace, 'confirmed.txt'), 'utf8')).toBe('yes');
      const again = await request(server, 'POST', '/v1/confirm', { body: { token: pending.json.token }, headers: auth });
      expect(again.status).toBe(409);
      expectDocumented('/v1/confirm', 'POST', again);
    });
  });

  describe('when the request is bad', () => {
    it.each([
      ['no token', 'POST', '/v1/call', { body: { tool: 'shell-exec' } }, 401, 'UNAUTHORIZED'],
      ['a wrong token', 'GET', '/v1/tools', { headers: { authorization: 'Bearer nope-nope-nope-nope' } }, 401, 'UNAUTHORIZED'],
      ['malformed JSON', 'POST', '/v1/call', { raw: '{"tool":', headers: { ...auth, 'content-type': 'application/json' } }, 400, 'MALFORMED_JSON'],
      ['both tool and intent', 'POST', '/v1/call', { body: { tool: 'shell-exec', intent: 'x' }, headers: auth }, 400, 'INVALID_REQUEST'],
      ['neither tool nor intent', 'POST', '/v1/call', { body: { params: {} }, headers: auth }, 400, 'INVALID_REQUEST'],
      ['an unknown field', 'POST', '/v1/match', { body: { intent: 'x', colour: 'red' }, headers: auth }, 400, 'INVALID_REQUEST'],
      ['params that are not an object', 'POST', '/v1/call', { body: { tool: 'shell-exec', params: 'echo' }, headers: auth }, 400, 'INVALID_REQUEST'],
      ['a body that is not JSON', 'POST', '/v1/match', { raw: 'intent=x', headers: { ...auth, 'content-type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a body over the limit', 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'x'.repeat(2 * 1024 * 1024) } }, headers: auth }, 413, 'PAYLOAD_TOO_LARGE'],
      ['an unknown route', 'GET', '/v1/nothing', { headers: auth }, 404, 'NOT_FOUND'],
      ['an unknown tool', 'POST', '/v1/call', { body: { tool: 'shel-exec', params: {} }, headers: auth }, 404, 'TOOL_NOT_FOUND'],
      ['invalid params', 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 42 } }, headers: auth }, 422, 'INVALID_PARAMS'],
      ['an unknown confirmation token', 'POST', '/v1/confirm', { body: { token: 'hldp_confirm_nope' }, headers: auth }, 409, 'CONFIRMATION_INVALID'],
      ['a bad receipts filter', 'GET', '/v1/receipts?ok=maybe', { headers: auth }, 400, 'INVALID_REQUEST'],
      ['an unknown receipts filter', 'GET', '/v1/receipts?colour=red', { headers: auth }, 400, 'INVALID_REQUEST'],
    ])('answers %s with %i and a message', async (_case, method, path, options, status, code) => {
      const response = await request(server, method, path, options);
      expect(response.status).toBe(status);
      expect(response.json).toMatchObject({ code });
      expect(typeof response.json.error).toBe('string');
      expect(response.text).not.toMatch(/at .*\.(ts|js):\d+/);
    });

    it('tells an agent calling a name near no tool how to list the tools over HTTP, and that no tool has that name (review userU, F8)', async () => {
      const response = await request(server, 'POST', '/v1/call', { body: { tool: 'quantum-teleporter', params: {} }, headers: auth });
      expect(response.json).toMatchObject({ code: 'TOOL_NOT_FOUND', near: [] });
      expect(response.json.error).toBe("unknown tool 'quantum-teleporter'; match by intent instead, or list the tools (GET /v1/tools over HTTP, tools/list over MCP, `hldp list`)");
      expect(response.json.suggestion).toMatch(/no tool named 'quantum-teleporter' is in the repository yet; write its definition at tools\/quantum-teleporter\/TOOL\.hdlp/);
      expect(response.json.suggestion).not.toMatch(/intent/);
    });

    it('says where the JSON ends too early', async () => {
      const response = await request(server, 'POST', '/v1/call', { raw: '{"tool":', headers: { ...auth, 'content-type': 'application/json' } });
      expect(response.json.error).toMatch(/at position 8/);
    });

    it('says which param is wrong and gives the schema', async () => {
      const response = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 42 } }, headers: auth });
      expect(response.json.error).toMatch(/'cmd' must be string/);
      expect(response.json.schema).toMatch(/cmd: string/);
      expectDocumented('/v1/call', 'POST', response);
    });
  });

  describe('the index routes', () => {
    it('lists tools, resolves one by name or alias, and 404s with near names', async () => {
      const list = await request(server, 'GET', '/v1/tools', { headers: auth });
      expect(list.json.tools.map((tool: { name: string }) => tool.name)).toEqual(['file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
      expectDocumented('/v1/tools', 'GET', list);
      const one = await request(server, 'GET', '/v1/tools/shell-exec', { headers: auth });
      expectDocumented('/v1/tools/{name}', 'GET', one);
      const missing = await request(server, 'GET', '/v1/tools/git-opz', { headers: auth });
      expect(missing.status).toBe(404);
      expect(missing.json.near.map((near: { name: string }) => near.name)).toContain('git-ops');
      expectDocumented('/v1/tools/{name}', 'GET', missing);
    });

    it('rescans on POST /v1/scan', async () => {
      const response = await request(server, 'POST', '/v1/scan', { headers: auth });
      expect(response.json).toMatchObject({ changed: false, tools: 5 });
      expectDocumented('/v1/scan', 'POST', response);
    });

    it('pages receipts newest first, filtered', async () => {
      for (const code of [4, 5]) await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: `exit ${code}` } }, headers: auth });
      const page = await request(server, 'GET', '/v1/receipts?ok=false&tool=shell-exec&limit=1', { headers: auth });
      expect(page.status).toBe(200);
      expect(page.json.receipts).toHaveLength(1);
      expect(page.json.receipts[0]).toMatchObject({ ok: false, tool: 'shell-exec', exit_code: 5 });
      expect(page.json.next_offset).toBe(1);
      expectDocumented('/v1/receipts', 'GET', page);
    });

    it('says no page follows the last one, even when it is full', async () => {
      for (const word of ['one', 'two']) await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: `echo ${word}` } }, headers: auth });
      const all = await request(server, 'GET', '/v1/receipts?limit=1000', { headers: auth });
      const count = all.json.receipts.length as number;
      expect(count).toBeGreaterThan(1);
      expect(all.json.next_offset).toBeNull();
      const last = await request(server, 'GET', `/v1/receipts?limit=1&offset=${count - 1}`, { headers: auth });
      expect(last.json.receipts).toHaveLength(1);
      expect(last.json.next_offset).toBeNull();
      const full = await request(server, 'GET', `/v1/receipts?limit=${count}`, { headers: auth });
      expect(full.json.next_offset).toBeNull();
    });
  });

  describe('the MCP endpoint', () => {
    it('is mounted at /mcp behind the same token', async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } } };
      const headers = { accept: 'application/json, text/event-stream' };
      expect((await request(server, 'POST', '/mcp', { body: initialize, headers })).status).toBe(401);
      const opened = await request(server, 'POST', '/mcp', { body: initialize, headers: { ...headers, ...auth } });
      expect(opened.status).toBe(200);
      expect(opened.headers.get('mcp-session-id')).toMatch(/\S+/);
      expect((await request(server, 'GET', '/mcp', { headers: auth })).status).toBe(400);
    });
  });

  describe('the operational routes', () => {
    it('serves /healthz without a token, /metrics with one', async () => {
      const probe = await request(server, 'GET', '/healthz');
      expect(probe.json).toEqual({ status: 'ok' });
      expectDocumented('/healthz', 'GET', probe);
      const health = await request(server, 'GET', '/healthz', { headers: auth });
      expect(health.json).toMatchObject({ status: 'ok', tools: 5, errors: 0, source: expect.any(String) });
      expectDocumented('/healthz', 'GET', health);
      expect((await request(server, 'GET', '/metrics')).status).toBe(401);
      // a call and a match of its own: the test runs alone (vitest -t) as well as after the others
      await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'true' } }, headers: auth });
      await request(server, 'POST', '/v1/match', { body: { intent: '查看最近的提交记录' }, headers: auth });
      const metrics = await request(server, 'GET', '/metrics', { headers: auth });
      expect(metrics.text).toMatch(/hldp_calls_total\{tool="shell-exec",executor="gatekeeper",outcome="ok"\} \d+/);
      expect(metrics.text).toMatch(/hldp_index_tools 5/);
      expect(metrics.text).toMatch(/hldp_call_duration_seconds_bucket/);
      expect(metrics.text).toMatch(/hldp_match_duration_seconds_count [1-9]/);
    });
  });
});
