import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { api, mcpClient, startPolicyGateway, textOf, TOKENS, type PolicyGateway } from '../policy/support.js';
import { hashToken } from '../../src/policy/index.js';

// Review V, V2 and V6: an agent is offered only the toolsets (and skills) of which it may use a tool (seed 003's
// lattice: visible ⊆ allowed), enabling one it may use nothing of is refused with the reason, and a toolset's name
// given to tool_load says how to enable it. bot here is the README's ci-bot: git-ops and file-read, nothing of ops.
const PRINCIPALS = `principals:
  bot: { roles: [agent], tools: [git-ops, file-read], token_sha256: ${hashToken(TOKENS.bot)} }
`;

let gateway: PolicyGateway;
let client: Client;
beforeAll(async () => {
  gateway = await startPolicyGateway({}, { principals: PRINCIPALS });
  client = await mcpClient(gateway.url, 'bot');
}, 60_000);
afterAll(async () => {
  await client?.close();
  await gateway?.stop();
});

const listed = async (): Promise<string[]> => (await client.listTools()).tools.map((tool) => tool.name).sort();
const meta = (name: string, args: Record<string, unknown>): Promise<CallToolResult> => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe('an agent that may use none of the ops toolset', () => {
  it('is not offered ops, nor the skill that needs it, by toolset list', async () => {
    const listing = await meta('toolset', { action: 'list' });
    expect(textOf(listing)).toContain('- repo');
    expect(textOf(listing)).not.toMatch(/- ops|server-ops/);
    expect(listing.structuredContent).toMatchObject({ toolsets: [{ name: 'repo' }], skills: ['repository-history'] });
  });

  it('is refused enabling ops with the tools it may not call, and keeps its tools listed', async () => {
    const before = await listed();
    expect(before).toEqual(expect.arrayContaining(['file-read', 'git-ops']));
    const refused = await meta('toolset', { action: 'enable', name: 'ops' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^toolset 'ops' holds no tool you may call: shell-exec, http-request \(.*principal 'bot'.*\); available: repo$/);
    expect(await listed()).toEqual(before);
  });

  it('is refused /mcp?toolsets=ops at connect time, as a misspelt toolset is', async () => {
    await expect(mcpClient(gateway.url, 'bot', { toolsets: 'ops' })).rejects.toThrow(/toolset 'ops' holds no tool you may call: shell-exec, http-request .*available: repo/);
  });

  it('is refused POST /v1/sessions with toolsets [ops] (403 TOOLSET_FORBIDDEN)', async () => {
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: { toolsets: ['ops'] } });
    expect(opened).toMatchObject({ status: 403, body: { code: 'TOOLSET_FORBIDDEN' } });
  });

  it('sees neither ops nor server-ops in its prompt block', async () => {
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: {} });
    const prompt = await api(gateway.url, 'GET', `/v1/sessions/${opened.body.id}/prompt`, { who: 'bot' });
    const text: string = prompt.body.text;
    expect(text).toContain('- repo');
    expect(text).not.toMatch(/- ops|server-ops/);
  });

  it("is told by tool_load 'repo' that repo is a toolset and how to enable it", async () => {
    const loaded = await meta('tool_load', { name: 'repo' });
    expect(loaded.isError).toBe(true);
    expect(textOf(loaded)).toBe(`'repo' is a toolset, not a tool or group: enable it with toolset {"action": "enable", "name": "repo"}`);
  });

  // review userZ7 F15: tool_load 'ops' said "no tool or group 'ops'", while toolset enable named ops and its tools
  it("is told by tool_load 'ops' what toolset enable tells it: ops is a toolset holding no tool it may call", async () => {
    const loaded = await meta('tool_load', { name: 'ops' });
    expect(loaded.isError).toBe(true);
    expect(textOf(loaded)).toMatch(/^'ops' is a toolset, not a tool or group; toolset 'ops' holds no tool you may call: shell-exec, http-request \(.*principal 'bot'.*\)$/);
    expect(textOf(loaded)).not.toContain('no tool or group');
    expect(loaded.structuredContent).toMatchObject({ code: 'TOOLSET_FORBIDDEN', toolset: 'ops' });
  });
});
