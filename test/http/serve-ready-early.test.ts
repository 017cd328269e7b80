// Issue #18: `hldp serve` listens and answers what needs no search index (a call by name, /v1/tools, /healthz) as soon
// as the scan is read, while its search index is built a slice at a time. The index is slow to build because the
// registry is large (a few thousand generated tools and no search index kept yet), not because anything is mocked;
// the test asserts the order of what the server says, never how long anything took.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { TIMEOUT_META } from '../../src/mcp-front/call-meta.js';
import { generateRepository } from '../../bench/scan/generate-repository.js';
import { commitFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { firstText, makeClient } from '../mcp-front/support.js';

// large enough that building its search index takes far longer than a few requests, on any machine
const TOOLS = 3000;
const INTENT = 'check disk usage on the server';

const home = useServiceHome('info');

describe('hldp serve while its search index is still being built', () => {
  it('answers a call by name and lists tools at once, refuses a match that will not wait with 503 SEARCH_INDEX_LOADING, and a match that waits answers as hldp match does', async () => {
    const repo = join(home.path, 'repo');
    await generateRepository(repo, TOOLS);
    await commitFiles(repo, { 'tools/shell-exec/TOOL.hdlp': await readFile(new URL('../../native-repo/tools/shell-exec/TOOL.hdlp', import.meta.url), 'utf8') }, 'add shell-exec');
    const server = await home.serve(['--repo', repo]);

    // the server listens before intent matching is ready, and says so
    const loading = await request(server, 'GET', '/healthz');
    expect(loading.json).toMatchObject({ tools: TOOLS + 1, matching: 'loading' });
    const byName = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo by name' } } });
    expect(byName.status).toBe(200);
    expect(byName.json).toMatchObject({ ok: true, tool: 'shell-exec', output: 'by name\n' });
    const listed = await request(server, 'GET', '/v1/tools?limit=2&summary=true');
    expect(listed.json).toMatchObject({ total: TOOLS + 1 });
    // asked not to wait, a match says the index is loading and when to ask again; the call above came before it
    const refused = await request(server, 'POST', '/v1/match', { body: { intent: INTENT }, headers: { prefer: 'wait=0' } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toMatchObject({ code: 'SEARCH_INDEX_LOADING' });
    expect(refused.json.error).toMatch(/call the tool by name/);
    // so does an MCP tool_find whose own deadline is shorter than the load, as a failed tool result with the same code
    const mcp = makeClient();
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const found = (await mcp.callTool({ name: 'tool_find', arguments: { intent: INTENT }, _meta: { [TIMEOUT_META]: 1 } })) as CallToolResult;
    await mcp.close();
    expect(found.isError).toBe(true);
    expect(found.structuredContent).toMatchObject({ code: 'SEARCH_INDEX_LOADING', retry_after_seconds: 1 });
    expect(firstText(found)).toMatch(/^SEARCH_INDEX_LOADING: .*call the tool by name/);
    expect(server.stderr()).not.toContain('"intent matching ready"');

    // by default a match waits for the index, and answers
    const waited = await request(server, 'POST', '/v1/match', { body: { intent: INTENT } });
    expect(waited.status).toBe(200);
    expect(waited.json).toMatchObject({ found: true, candidates: [{ name: 'shell-exec' }] });
    expect((await request(server, 'GET', '/healthz')).json).toMatchObject({ status: 'ok', matching: 'ready' });
    // its log says when (the line reaches this process's pipe a moment after the answer)
    while (!server.stderr().includes('"intent matching ready"')) await new Promise((resolve) => setTimeout(resolve, 20));
    // once ready, the same match (and the same asked by intent through /v1/call) answers exactly as before, and as hldp match over the same scan
    const after = await request(server, 'POST', '/v1/match', { body: { intent: INTENT }, headers: { prefer: 'wait=0' } });
    expect(after.json).toEqual(waited.json);
    expect((await request(server, 'POST', '/v1/call', { body: { intent: INTENT } })).json).toEqual(waited.json);
    const cli = await runCli(['match', '--repo', repo, '--json', INTENT], { env: home.env, timeoutMs: 120_000 });
    expect(JSON.parse(cli.stdout)).toEqual(waited.json);
  }, 180_000);
});
