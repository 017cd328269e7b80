import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument, WIRE_ERRORS } from '../../src/openapi/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { expectDocumented, request, startTestServer } from '../helpers/http-server.js';
import { connectHttp, type HttpConnected } from '../mcp-front/support.js';
import { runCli } from '../helpers/run-cli.js';

// Requests and definitions that must get a 4xx saying what to send instead, never a 500 or a hang.

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let server: Awaited<ReturnType<typeof startTestServer>>;
let mcp: HttpConnected;

const deep = (depth: number): unknown => {
  let value: unknown = 'x';
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
};

beforeAll(async () => {
  temp = await makeTempDir();
  repo = join(temp.path, 'repo');
  await writeFiles(repo, {
    'tools/echo-it/TOOL.hdlp': makeToolYaml('echo-it', { executor: 'shell', method: 'run', params_schema: '{ v: { type: object } }', shell: '{ argv: [echo, ok] }', group: 'demo' }),
    'tools/list-it/TOOL.hdlp': makeToolYaml('list-it', { executor: 'shell', method: 'run', shell: '{ argv: [ls] }', intent: 'lists the files of a folder' }),
    'tools/shell-exec/TOOL.hdlp': makeToolYaml('shell-exec', { executor: 'shell', method: 'run', shell: '{ argv: [echo, shell] }' }),
    'tools/broken/TOOL.hdlp': makeToolYaml('broken', { executor: 'telepathy' }),
  });
  server = await startTestServer(repo);
  mcp = await connectHttp(repo);
});
afterAll(async () => {
  await mcp.close();
  await server.cleanup();
  await temp.cleanup();
});

describe('params nested 10,000 deep', () => {
  // written as text: JSON.stringify itself recurses, and a test's stack is no deeper than the server's
  const deepText = (depth: number): string => `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`;

  it('gets 400 NESTING_TOO_DEEP over HTTP', async () => {
    const raw = `{"tool":"echo-it","params":{"v":${deepText(10_000)}}}`;
    const response = await request(server, 'POST', '/v1/call', { raw, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'NESTING_TOO_DEEP', error: expect.stringContaining('at most 64 levels') });
    expectDocumented('/v1/call', 'POST', response);
  });

  it('passes at 60 levels', async () => {
    const response = await request(server, 'POST', '/v1/call', { body: { tool: 'echo-it', params: { v: deep(60) } } });
    expect(response.json).toMatchObject({ ok: true, output: 'ok\n' });
  });

  it('gets a failed MCP call that says so, not a stack overflow', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = (body: string, session?: string) => fetch(mcp.url, { method: 'POST', headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) }, body });
    const opened = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    await (await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session)).text();
    const answer = await (await post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo-it","arguments":{"v":${deepText(10_000)}}}}`, session)).text();
    expect(answer).toContain('nested more than 64 levels deep');
    expect(answer).toContain('"isError":true');
    expect(answer).not.toContain('Maximum call stack');
  });
});

describe('numeric query parameters', () => {
  it.each(['offset=99999999999999999999', 'offset=9007199254740993', 'limit=0', 'limit=1001', 'offset=-1', 'limit=1e3'])('refuse %s with 400 naming the range', async (query) => {
    const response = await request(server, 'GET', `/v1/receipts?${query}`);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/must be an integer from \d+ to \d+/);
    expectDocumented('/v1/receipts', 'GET', response);
  });

  it('accepts the largest safe offset', async () => {
    const response = await request(server, 'GET', '/v1/receipts?offset=9007199254740991');
    expect(response.json).toMatchObject({ receipts: [], offset: 9007199254740991, next_offset: null });
  });
});

describe('names that are properties of every object', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('MCP tools/call %s answers unknown tool', async (name) => {
    const result = await mcp.client.callTool({ name, arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(`unknown tool '${name}'`);
    expect(JSON.stringify(result.content)).not.toContain('INTERNAL_ERROR');
  });

  it.each(['__proto__', 'constructor', 'toString'])('POST /v1/call %s answers 404', async (name) => {
    const response = await request(server, 'POST', '/v1/call', { body: { tool: name, params: {} } });
    expect(response.status).toBe(404);
    expectDocumented('/v1/call', 'POST', response);
  });
});

describe('bodies of the wrong shape', () => {
  it('a body with both tool and intent gets 400 saying to send one', async () => {
    const response = await request(server, 'POST', '/v1/call', { body: { tool: 'echo-it', intent: 'echo' } });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/send either 'tool' \(with 'params'\) to run a tool, or 'intent'/);
    expect(response.json.error).not.toMatch(/must NOT be valid/);
  });

  it.each([['42', 'a number'], ['"text"', 'a string'], ['[1]', 'a list'], ['null', 'null']])('a scalar body %s gets 400 showing an object to send', async (raw, got) => {
    const response = await request(server, 'POST', '/v1/call', { raw, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe(`the body must be a JSON object, got ${got}; send {"tool": "shell-exec", "params": {"cmd": "echo hello"}} to run a tool, or {"intent": "..."} to match one`);
  });
});

describe('a tool whose definition is broken', () => {
  it('answers 409 TOOL_BROKEN with its diagnostics, not "unknown tool"', async () => {
    const response = await request(server, 'POST', '/v1/call', { body: { tool: 'broken', params: {} } });
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ code: 'TOOL_BROKEN', tool: 'broken', diagnostics: [{ file: 'tools/broken/TOOL.hdlp', line: 5, code: 'SCHEMA_VIOLATION' }] });
    expect(response.json.error).toMatch(/^tool 'broken' is in the repository but its definition is broken.*tools\/broken\/TOOL.hdlp:5:11/);
    expectDocumented('/v1/call', 'POST', response);
    const got = await request(server, 'GET', '/v1/tools/broken');
    expect(got.status).toBe(409);
    expectDocumented('/v1/tools/{name}', 'GET', got);
  });

  it('says so on the CLI, with file:line:col', async () => {
    const run = await runCli(['call', 'broken', '--repo', repo], { env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/is in the repository but its definition is broken[\s\S]*\ntools\/broken\/TOOL.hdlp:5:11: error: 'executor' must be one of/);
  });

  it('says so over MCP', async () => {
    const result = await mcp.client.callTool({ name: 'broken', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('tools/broken/TOOL.hdlp:5:11');
  });

  it('makes /healthz degraded', async () => {
    expect((await request(server, 'GET', '/healthz')).json).toMatchObject({ status: 'degraded', errors: 1 });
  });
});

describe('a name one typo from a registered tool', () => {
  it('names that tool first in the suggestion', async () => {
    const response = await request(server, 'POST', '/v1/call', { body: { tool: 'shel-exec', params: {} } });
    expect(response.status).toBe(404);
    expect(response.json.suggestion).toMatch(/^call 'shell-exec', the registered tool spelled like 'shel-exec'; if no registered tool fits, 此工具尚不在仓库中/);
  });
});

describe('GET /v1/tools', () => {
  it('pages with limit and offset', async () => {
    const first = await request(server, 'GET', '/v1/tools?limit=2');
    expect(first.json).toMatchObject({ total: 3, limit: 2, offset: 0, next_offset: 2 });
    expect(first.json.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo-it', 'list-it']);
    const second = await request(server, 'GET', '/v1/tools?limit=2&offset=2');
    expect(second.json).toMatchObject({ next_offset: null, tools: [{ name: 'shell-exec' }] });
    expectDocumented('/v1/tools', 'GET', second);
  });

  it('filters by group and by words, and lists summaries without schemas', async () => {
    expect((await request(server, 'GET', '/v1/tools?group=demo')).json.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo-it']);
    expect((await request(server, 'GET', '/v1/tools?q=FILES%20folder')).json.tools.map((tool: { name: string }) => tool.name)).toEqual(['list-it']);
    const summary = await request(server, 'GET', '/v1/tools?summary=true');
    expect(summary.json.tools[0]).toEqual({ name: 'echo-it', display: '工具 echo-it', intent: 'does echo-it things', executor: 'shell', method: 'run', aliases: [], group: 'demo' });
    expectDocumented('/v1/tools', 'GET', summary);
  });

  it.each(['limit=5000', 'summary=yes', 'page=2'])('refuses %s with 400', async (query) => {
    const response = await request(server, 'GET', `/v1/tools?${query}`);
    expect(response.status).toBe(400);
    expectDocumented('/v1/tools', 'GET', response);
  });
});

describe('the wire error table', () => {
  const source = fileURLToPath(new URL('../../src/', import.meta.url));
  const sent = (folder: string): string[] =>
    (readdirSync(join(source, folder), { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [...readFileSync(join(source, folder, file), 'utf8').matchAll(/\.json\(\{[^)]*?\bcode: '([A-Z_]+)'/g)].map((match) => match[1]!));

  it('holds every code the gateway HTTP API and its edge send', () => {
    const codes = [...sent('gateway/http'), ...sent('http-edge')];
    expect(codes.length).toBeGreaterThan(10);
    expect([...new Set(codes)].filter((code) => !(code in WIRE_ERRORS))).toEqual([]);
  });

  it('is what the OpenAPI Error schema enumerates, each with a status and a fix', () => {
    const document = openApiDocument('test') as { components: { schemas: { Error: { properties: { code: { enum: string[] } } } } } };
    expect(document.components.schemas.Error.properties.code.enum).toEqual(Object.keys(WIRE_ERRORS));
    for (const [code, { status, fix }] of Object.entries(WIRE_ERRORS)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(fix.length, code).toBeGreaterThan(10);
    }
  });
});
