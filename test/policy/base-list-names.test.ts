import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { api, echoTool, startPolicyGateway, TOKENS, type PolicyGateway } from './support.js';

// Review V, V1: the README's principals example gave ci-bot `repo`, a toolset, which a base list silently dropped;
// and a group there matched only in its exact letter case while tool names matched in any. Now a group matches in
// any case, as names do, and an entry naming nothing is said in the log once per commit, naming the toolset it is.
const PRINCIPALS = `principals:
  bot: { roles: [agent], tools: [git-ops, echoes, repo], token_sha256: ${hashToken(TOKENS.bot)} }
`;

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({ 'tools/echo-a/TOOL.hdlp': echoTool('echo-a', 'group: Echoes') }, { principals: PRINCIPALS, logLevel: 'warn' });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
});

describe("a principal's base list", () => {
  it('names a group in another letter case than the tools write it, and the group is its', async () => {
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'echo-a', params: { text: 'hi' } } });
    expect(call).toMatchObject({ status: 200, body: { ok: true, output: 'hi\n' } });
  });

  it("names a toolset: the log says once that it gives nothing and which tools to list instead", async () => {
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'x.txt', content: 'x' } } });
    expect(call.status).toBe(403);
    await vi.waitFor(() => expect(gateway.service.stderr()).toContain("principals.bot.tools: 'repo' names no tool, alias or group of this registry, so it gives nothing (it is a toolset: list its tools, git-ops, file-read, file-write, instead)"), { timeout: 10_000, interval: 20 });
    await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'status' } } });
    expect(gateway.service.stderr().match(/principals\.bot\.tools: 'repo'/g)).toHaveLength(1);
    expect(gateway.service.stderr()).not.toContain("'echoes' names no tool");
  });
});
