// Review userU, F5 and F9: the small surprises of a real `hldp serve` at its edge. `POST /v1/call {}` was told both
// 'tool' and 'intent' were missing, as if both were required; `PUT /v1/call` was 404 "no route", as if the route did
// not exist; `GET /v1/rejections?code=NOPE` was an empty page, as if nothing had been refused; and /mcp answered a body
// that is not JSON, or a query parameter it does not take, in the REST shape a JSON-RPC client cannot read.
import { describe, expect, it } from 'vitest';
import { openApiDocument, WIRE_ERRORS } from '../../src/openapi/index.js';
import { expectDocumented, request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const MCP_ACCEPT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const paths = (openApiDocument('test') as { paths: Record<string, Record<string, unknown>> }).paths;

describe('hldp serve', () => {
  describe('when POST /v1/call names neither tool nor intent', () => {
    it('says to send {tool, params} to run a tool or {intent} to match one, not that both are missing', async () => {
      const server = await home.serve();
      const empty = await request(server, 'POST', '/v1/call', { body: {} });
      expect(empty.status).toBe(400);
      expect(empty.json.error).toBe(`the body names neither 'tool' nor 'intent'; send {"tool": "shell-exec", "params": {"cmd": "echo hello"}} to run a tool, or {"intent": "..."} to match one`);
      expectDocumented('/v1/call', 'POST', empty);
      // a misspelt field is named: it is the one meant
      const typo = await request(server, 'POST', '/v1/call', { body: { tol: 'shell-exec', params: {} } });
      expect(typo.json.error).toMatch(/^the body names neither 'tool' nor 'intent' \(unknown field 'tol'\); send /);
    });
  });

  // review userZ3, MEDIUM 1: a field of the other form was answered "the body must NOT be valid; missing required field
  // 'tool'", telling an intent caller to add 'tool', which would run something
  describe('when POST /v1/call mixes a field of one form into the other', () => {
    it('answers 400 naming the stray field and both forms, never asking an intent request for a tool', async () => {
      const server = await home.serve();
      const mixes: [Record<string, unknown>, string, string][] = [
        [{ intent: 'read a file', params: { x: 1 } }, "'params' goes with 'tool'", 'intent'],
        [{ intent: 'x', timeout_ms: 5 }, "'timeout_ms' goes with 'tool'", 'intent'],
        [{ intent: 'x', params: {}, timeout_ms: 5 }, "'params', 'timeout_ms' go with 'tool'", 'intent'],
        [{ tool: 'git-ops', limit: 2 }, "'limit' goes with 'intent'", 'tool'],
        [{ tool: 'git-ops', context: {} }, "'context' goes with 'intent'", 'tool'],
      ];
      for (const [body, named, form] of mixes) {
        const answer = await request(server, 'POST', '/v1/call', { body });
        expect({ body, status: answer.status, code: answer.json.code }).toEqual({ body, status: 400, code: 'INVALID_REQUEST' });
        expect(answer.json.error).toMatch(new RegExp(`^${named}; a request with '${form}' takes only `));
        expect(answer.json.error).not.toMatch(/must NOT be valid|missing required field/);
        expectDocumented('/v1/call', 'POST', answer);
      }
      const intent = await request(server, 'POST', '/v1/call', { body: { intent: 'read a file', params: { x: 1 } } });
      expect(intent.json.error).toBe(`'params' goes with 'tool'; a request with 'intent' takes only intent, context and limit, and never runs anything: drop 'params' to match, or send {"tool": ..., "params": {...}} without 'intent' to run a tool`);
      // nothing ran: no receipt was stored for any of them
      expect((await request(server, 'GET', '/v1/receipts')).json.receipts).toEqual([]);
      // each form alone still answers
      expect((await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo hi' }, timeout_ms: 5000 } })).json.ok).toBe(true);
      expect((await request(server, 'POST', '/v1/call', { body: { intent: 'show the recent commits', limit: 2, context: {} } })).status).toBe(200);
    });
  });

  describe('when a documented path is asked with a method it does not serve', () => {
    it('answers 405 METHOD_NOT_ALLOWED with an Allow header of the documented methods, on every path', async () => {
      const server = await home.serve();
      const put = await request(server, 'PUT', '/v1/call');
      expect({ status: put.status, allow: put.headers.get('allow'), json: put.json }).toEqual({
        status: 405, allow: 'POST', json: { code: 'METHOD_NOT_ALLOWED', error: 'PUT is not a method of /v1/call; it takes POST (see GET /v1/openapi.json)' },
      });
      expect(WIRE_ERRORS.METHOD_NOT_ALLOWED.status).toBe(405);
      const session = (await request(server, 'POST', '/v1/sessions')).headers.get('x-hldp-session')!;
      for (const [route, operations] of Object.entries(paths)) {
        if (route === '/mcp') continue;
        const documented = Object.keys(operations).map((method) => method.toUpperCase());
        const path = route.replace('{id}', session).replace('{name}', 'shell-exec');
        const answer = await request(server, 'PATCH', path);
        const allow = documented.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ');
        expect({ path, status: answer.status, allow: answer.headers.get('allow'), code: answer.json?.code }).toEqual({ path, status: 405, allow, code: 'METHOD_NOT_ALLOWED' });
      }
      // a path that is not there at all is still 404
      expect((await request(server, 'PUT', '/v1/nope')).status).toBe(404);
    });
  });

  describe('when GET /v1/rejections filters by a code no rejection has', () => {
    it('answers 400 naming the codes, as /v1/approvals?status=bogus does, and filters by a real one', async () => {
      const server = await home.serve();
      const wrong = await request(server, 'GET', '/v1/rejections?code=NOPE');
      expect(wrong.status).toBe(400);
      expect(wrong.json).toEqual({ code: 'INVALID_REQUEST', error: "'code' must be one of TOOL_NOT_FOUND, TOOL_BROKEN, INVALID_PARAMS, TOOL_FORBIDDEN, TIMEOUT_NOT_ALLOWED, got 'NOPE'" });
      expectDocumented('/v1/rejections', 'GET', wrong);
      await request(server, 'POST', '/v1/call', { body: { tool: 'no-such-tool', params: {} } });
      const found = await request(server, 'GET', '/v1/rejections?code=TOOL_NOT_FOUND');
      expect(found.json.rejections).toEqual([expect.objectContaining({ tool: 'no-such-tool', code: 'TOOL_NOT_FOUND' })]);
    });
  });

  describe('when /mcp is sent what it cannot read', () => {
    it('answers JSON-RPC errors with id null: -32700 for a body that is not JSON, -32600 for a query parameter it does not take', async () => {
      const server = await home.serve();
      const notJson = await request(server, 'POST', '/mcp', { raw: '{"jsonrpc":', headers: MCP_ACCEPT });
      expect(notJson.status).toBe(400);
      expect(notJson.json).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not valid JSON: Unexpected end of JSON input' }, id: null });
      const query = await request(server, 'POST', '/mcp?toolset=repo', { raw: JSON.stringify(INITIALIZE), headers: MCP_ACCEPT });
      expect(query.status).toBe(400);
      expect(query.json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: "Invalid Request: unknown query parameter 'toolset' on POST /mcp; use toolsets" }, id: null });
      const put = await request(server, 'PUT', '/mcp');
      expect({ status: put.status, allow: put.headers.get('allow'), error: put.json.error }).toEqual({ status: 405, allow: 'GET, POST, DELETE', error: { code: -32600, message: 'Method not allowed: /mcp takes GET, POST, DELETE' } });
      // what it can read still opens a session
      const opened = await request(server, 'POST', '/mcp?toolsets=', { raw: JSON.stringify(INITIALIZE), headers: MCP_ACCEPT });
      expect(opened.status).toBe(200);
    });
  });
});
