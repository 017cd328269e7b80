import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { expectDocumented, request, startTestServer } from '../helpers/http-server.js';
import { callTool, connectHttp, firstText } from './support.js';

// review userZ, Z3: an agent that had just loaded and run `zc` called it again after a commit removed it, and read
// "no tool named 'zc' is in the repository yet; write its definition at tools/zc/TOOL.hdlp": it re-created a tool its
// author had deleted. It is told the tool was removed, at which commit, and nothing ran.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const echo = (name: string): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${name}] }` });

async function repository(): Promise<{ repo: string; first: string }> {
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  const repo = join(temp.path, 'repo');
  await initRepository(repo);
  const first = await commitFiles(repo, { 'tools/za/TOOL.hdlp': echo('za'), 'tools/zc/TOOL.hdlp': echo('zc') });
  return { repo, first };
}

describe('a tool a commit removed', () => {
  it('over MCP: tool_call and tool_load of a tool the session loaded and ran say when it went, never to write it', async () => {
    const { repo, first } = await repository();
    const connected = await connectHttp(repo);
    cleanups.push(() => connected.close());
    expect((await callTool(connected.client, 'tool_load', { name: 'zc' })).isError).toBeFalsy();
    expect(firstText(await callTool(connected.client, 'tool_call', { name: 'zc', params: {} }))).toContain('zc');
    const removed = await commitFiles(repo, { 'tools/zc/TOOL.hdlp': null }, 'remove zc');
    await connected.gateway.rescan();

    const called = await callTool(connected.client, 'tool_call', { name: 'zc', params: {} });
    expect(called.isError).toBe(true);
    expect(called.structuredContent).toMatchObject({ code: 'TOOL_NOT_FOUND', removed_at: removed, served_at: first });
    const text = firstText(called);
    expect(text).toContain(`tool 'zc' was removed from the repository at commit ${removed.slice(0, 12)}`);
    expect(text).toContain('nothing ran');
    expect(text).not.toMatch(/is in the repository yet|write its definition/);

    const loaded = await callTool(connected.client, 'tool_load', { name: 'zc' });
    expect(loaded.isError).toBe(true);
    expect(loaded.structuredContent).toMatchObject({ code: 'TOOL_NOT_FOUND', removed_at: removed });
    expect(firstText(loaded)).toContain(`was removed from the repository at commit ${removed.slice(0, 12)}`);

    // a name never served is still a missing tool, with the advice to write it
    expect(firstText(await callTool(connected.client, 'tool_call', { name: 'zq', params: {} }))).toContain('write its definition at tools/zq/TOOL.hdlp');
  });

  it('over HTTP: POST /v1/call and GET /v1/tools/:name answer 404 with removed_at; a tool written again is served again', async () => {
    const { repo, first } = await repository();
    const server = await startTestServer(repo);
    cleanups.push(server.cleanup);
    expect((await request(server, 'POST', '/v1/call', { body: { tool: 'zc', params: {} } })).status).toBe(200);
    const removed = await commitFiles(repo, { 'tools/zc/TOOL.hdlp': null }, 'remove zc');
    await server.gateway.rescan();

    const call = await request(server, 'POST', '/v1/call', { body: { tool: 'zc', params: {} } });
    expect(call.status).toBe(404);
    expect(call.json).toMatchObject({ code: 'TOOL_NOT_FOUND', removed_at: removed, served_at: first });
    expect(call.json.error).toContain('nothing ran');
    expect(call.json.suggestion).not.toMatch(/is in the repository yet|write its definition/);
    expectDocumented('/v1/call', 'post', call);
    const described = await request(server, 'GET', '/v1/tools/zc');
    expect(described.status).toBe(404);
    expect(described.json).toMatchObject({ removed_at: removed });

    // another unrelated commit keeps the removal known; writing the tool again serves it again
    await commitFiles(repo, { 'tools/zd/TOOL.hdlp': echo('zd') }, 'add zd');
    await server.gateway.rescan();
    expect((await request(server, 'POST', '/v1/call', { body: { tool: 'zc', params: {} } })).json).toMatchObject({ removed_at: removed });
    await commitFiles(repo, { 'tools/zc/TOOL.hdlp': echo('zc') }, 'zc again');
    await server.gateway.rescan();
    expect((await request(server, 'POST', '/v1/call', { body: { tool: 'zc', params: {} } })).status).toBe(200);
  });
});
