import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { commitFiles } from '../helpers/git.js';
import { api, mcpClient, policyRepository, startGateway, textOf, TOKENS } from '../policy/support.js';

// Found last session (its branch lost): an MCP client that came back with its session id to a gateway that no longer
// held the connection's agent session (restarted: sessions live in memory on the SQLite store) had the session opened
// again with the toolsets it was recorded with; one of them a push had removed, and the open threw: every request of
// the restored connection failed with the refusal of a new connection ("no toolset ops; available: …"), tools/list
// included. The session now opens with the toolsets that exist, and holds the gone one as a session that lived
// through the rescan does: told as gone (toolset list, X-HLDP-Toolsets-Gone), until the agent disables it.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

/** An MCP client of bot's that resumes session `id` at `url` (no initialize: the SDK's reconnection), keeping each answer's X-HLDP-Toolsets-Gone. */
async function resumedClient(url: string, id: string): Promise<{ client: Client; goneHeaders: Array<string | null> }> {
  const goneHeaders: Array<string | null> = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp?toolsets=repo,ops`), {
    sessionId: id,
    requestInit: { headers: { authorization: `Bearer ${TOKENS.bot}` } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'POST') goneHeaders.push(response.headers.get('x-hldp-toolsets-gone'));
      return response;
    },
  });
  const client = new Client({ name: 'policy-test-bot', version: '0.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, goneHeaders };
}

const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('an MCP connection restored after a restart, one of whose toolsets a push removed', () => {
  it('opens with the toolsets that exist and tells the agent the removed one is gone, instead of failing every request', { timeout: 120_000 }, async () => {
    const { repo, temp } = await policyRepository({});
    cleanups.push(() => temp.cleanup());
    const first = await startGateway(repo, temp.path, { logLevel: 'warn' });
    cleanups.push(() => first.service.stop());
    const client = await mcpClient(first.url, 'bot', { toolsets: 'repo,ops' });
    const id = (client.transport as StreamableHTTPClientTransport).sessionId!;
    expect(await names(client)).toEqual(expect.arrayContaining(['file-read', 'shell-exec']));

    // a push removes toolset ops, the gateway rescans; then it restarts (a deploy), and its agent sessions are gone
    const commit = await commitFiles(repo, { 'toolsets/ops/TOOLSET.hdlp': null }, 'remove toolset ops');
    expect((await api(first.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
    await first.service.stop();
    const second = await startGateway(repo, temp.path, { logLevel: 'warn' });
    cleanups.push(() => second.service.stop());

    const { client: resumed, goneHeaders } = await resumedClient(second.url, id);
    // the tools of the toolset that exists, as a new connection with only it lists them
    const fresh = await mcpClient(second.url, 'bot', { toolsets: 'repo' });
    cleanups.push(() => fresh.close());
    expect(await names(resumed)).toEqual(await names(fresh));
    expect(await names(resumed)).toContain('file-read');
    await writeFile(join(temp.path, 'workspace', 'note.txt'), 'still here\n');
    const read = (await resumed.callTool({ name: 'file-read', arguments: { path: 'note.txt' } })) as CallToolResult;
    expect(read.isError, textOf(read)).toBeFalsy();
    expect(textOf(read)).toContain('still here');

    // the gone one is named, with the commit the registry is at and how to put it down
    const listed = textOf((await resumed.callTool({ name: 'toolset', arguments: { action: 'list' } })) as CallToolResult);
    expect(listed).toContain(`toolset 'ops' is not in the registry at commit ${commit.slice(0, 7)}`);
    expect(listed).toContain('disable it with toolset {"action": "disable", "name": "ops"}');
    expect(goneHeaders.at(-1)).toBe('ops');
    // a log line goes out through the logger's asynchronous writes: it may reach the pipe after an answer does
    await vi.waitFor(() => expect(second.service.stderr()).toContain('holds toolsets the registry no longer serves'), { timeout: 10_000, interval: 20 });

    // over HTTP the same session (the connection's id) says so too
    const described = await api(second.url, 'GET', `/v1/sessions/${id}`, { who: 'bot' });
    expect(described.body.toolsets).toEqual([expect.objectContaining({ name: 'repo' }), expect.objectContaining({ name: 'ops', gone: expect.stringContaining("toolset 'ops' is not in the registry") })]);
    const called = await api(second.url, 'POST', '/v1/call', { who: 'bot', session: id, body: { tool: 'toolset', params: { action: 'list' } } });
    expect(called.headers.get('x-hldp-toolsets-gone')).toBe('ops');

    // disabled by name, it is gone from the session and from the header
    expect(textOf((await resumed.callTool({ name: 'toolset', arguments: { action: 'disable', name: 'ops' } })) as CallToolResult)).toContain("disabled 'ops'");
    await resumed.listTools();
    expect(goneHeaders.at(-1)).toBeNull();

    // the header is in the API's document, on the answers that carry it
    const document = (await api(second.url, 'GET', '/v1/openapi.json')).body;
    expect(document.paths['/v1/call'].post.responses['200'].headers).toHaveProperty('X-HLDP-Toolsets-Gone');
    expect(document.paths['/mcp'].post.responses['200'].headers).toHaveProperty('X-HLDP-Toolsets-Gone');
  });
});
