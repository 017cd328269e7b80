import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { commitFiles } from '../helpers/git.js';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { api, mcpClient, textOf, TOKENS, type PolicyGateway, startPolicyGateway } from '../policy/support.js';

// Review userX, X2 (the all-gone case) and X6: a commit that removed every tool of toolset 'ops' made the scan leave
// 'ops' out, and a session that had it active kept it with no word: its list shrank to the meta-tools, `enable` said
// "no toolset ops", `tool_load` offered a tool spelled like it, the prompt block said "Active toolsets: ops" over an
// empty list, and the console listed the removed tools as loaded. The start log also called a toolset served with its
// other members "dropped".
let gateway: PolicyGateway;
const clients: Client[] = [];

const HALFWAY = `name: halfway
description: reads files, and a tool nobody wrote yet
tools: [file-read, no-such-tool]
author: test
why: a toolset missing one member is served with the others
`;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'toolsets/halfway/TOOLSET.hdlp': HALFWAY });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await gateway?.stop();
});

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> => (await client.callTool({ name, arguments: args })) as CallToolResult;

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never: ${what}`);
}

describe('hldp serve over a toolset missing one member', () => {
  it('says at start that it is served in part, not that it was dropped', () => {
    const stderr = gateway.service.stderr();
    expect(stderr).toContain('1 definition(s) served in part');
    expect(stderr).toContain('toolsets/halfway/TOOLSET.hdlp');
    expect(stderr).not.toContain('dropped, not served');
  });
});

describe('a toolset every tool of which a commit removes', () => {
  it('tells the sessions holding it, over HTTP, /mcp and the console, what went and when, and lets them disable it', async () => {
    const created = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: { toolsets: ['ops'] } });
    expect(created.status).toBe(201);
    const session = created.body.id as string;
    expect((await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'tool_load', params: { name: 'shell-exec' } } })).status).toBe(200);
    const client = await mcpClient(gateway.url, 'bot', { toolsets: 'ops' });
    clients.push(client);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shell-exec');

    const commit = await commitFiles(gateway.repo, { 'tools/shell-exec/TOOL.hdlp': null, 'tools/http-request/TOOL.hdlp': null }, 'remove shell-exec and http-request');
    expect((await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
    // which members went is the admin's to read (review Z3, 3): bot, an agent, is told that they went and when
    const gone = `toolset 'ops' is gone since commit ${commit.slice(0, 7)}: its members were removed from the registry, and it names no other`;
    const named = `toolset 'ops' is gone since commit ${commit.slice(0, 7)}: its members shell-exec, http-request were removed from the registry`;

    // /mcp: the list changed, and each meta-tool names the toolset as gone, with when and why
    await until(() => changes > 0, 'notifications/tools/list_changed');
    const enabled = await call(client, 'toolset', { action: 'enable', name: 'ops' });
    expect(enabled.isError).toBe(true);
    expect(textOf(enabled)).toContain(gone);
    expect(textOf(enabled)).toContain('disable it with toolset {"action": "disable", "name": "ops"}');
    expect(textOf(await call(client, 'tool_load', { name: 'ops' }))).toContain(gone);
    expect(textOf(await call(client, 'toolset', { action: 'list' }))).toContain(gone);

    // HTTP: the session, each call in it, the prompt block; a new session or connection asking for it
    const described = await api(gateway.url, 'GET', `/v1/sessions/${session}`, { who: 'bot' });
    expect(described.body.toolsets).toEqual([expect.objectContaining({ name: 'ops', gone: expect.stringContaining(gone) })]);
    const listed = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'toolset', params: { action: 'list' } } });
    expect(listed.headers.get('x-hldp-toolsets-gone')).toBe('ops');
    expect((await api(gateway.url, 'GET', `/v1/sessions/${session}/prompt`, { who: 'bot' })).body.text).toContain(gone);
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: { toolsets: ['ops'] } });
    expect(opened.status).toBe(404);
    expect(opened.body.error).toContain(gone);
    await expect(mcpClient(gateway.url, 'bot', { toolsets: 'ops' })).rejects.toThrow(/gone since commit/);
    expect((await api(gateway.url, 'POST', '/v1/sessions', { who: 'admin', body: { toolsets: ['ops'] } })).body.error).toContain(named);

    // the console marks the gone toolset and the removed tool the session had loaded
    const cookie = await signInToConsole(gateway.url, TOKENS.admin);
    await consoleCsrf(gateway.url, cookie);
    const page = await (await fetch(`${gateway.url}/console/sessions`, { headers: { cookie } })).text();
    expect(page).toContain(session);
    expect(page).toContain('<del>shell-exec</del>');
    expect(page).toContain(`removed: not in the registry at commit ${commit.slice(0, 7)}`);
    expect(page).toContain('<del>ops</del> (gone)');

    // disabling it, by name, brings the session back to no toolset active: every tool it may use is listed again
    const disabled = await call(client, 'toolset', { action: 'disable', name: 'ops' });
    expect(textOf(disabled)).toContain("disabled 'ops' ('ops' was no longer in the registry)");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('git-ops');
    const put = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'toolset', params: { action: 'disable', name: 'ops' } } });
    expect(put.body.message).toContain("disabled 'ops'");
    expect(put.headers.get('x-hldp-toolsets-gone')).toBeNull();
  });
});
