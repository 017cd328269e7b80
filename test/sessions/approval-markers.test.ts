import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { api, mcpClient, startPolicyGateway, type PolicyGateway, type Who } from '../policy/support.js';

// Review userV, V9: the prompt block marked `[needs confirmation]` from the tool's require_confirm alone, while the
// approval rules in force for the caller decide: under the README's writes policy a write in agent/ runs at once and
// any other waits for a person, with no token. What an agent is told now follows its own rules, in its own terms
// (needs / may need approval), and a rule for another caller changes nothing it is shown.

const POLICY = [
  'name: writes', 'author: TEST-001', 'why: the agent writes in agent/; anywhere else a person looks first',
  'approval:',
  '  - tools: [file-write]', '    when: { path: { glob: "agent/**" } }', '    decision: allow',
  '  - tools: [file-write]', '    decision: approve', '    reason: a write outside agent/ needs a person',
  '  - tools: [http-request]', '    callers: { principals: [bot] }', '    decision: approve',
].join('\n');

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/writes.hdlp': POLICY });
});
afterAll(() => gateway?.stop());

async function promptOf(who: Who, toolsets: string[]): Promise<string> {
  const opened = await api(gateway.url, 'POST', '/v1/sessions', { who, body: toolsets.length ? { toolsets } : {} });
  expect(opened.status).toBe(201);
  const prompt = await api(gateway.url, 'GET', `/v1/sessions/${opened.body.id}/prompt`, { who });
  expect(prompt.status).toBe(200);
  return prompt.body.text as string;
}

const lineOf = (text: string, tool: string): string => text.split('\n').find((line) => line.startsWith(`- ${tool}`)) ?? `(no line for ${tool} in:\n${text})`;

describe('the mode markers an agent is shown', () => {
  it('follow the approval rules in force for it, in the signatures of its active toolsets', async () => {
    const text = await promptOf('bot', ['repo', 'ops']);
    expect(lineOf(text, 'file-write')).toMatch(/^- file-write\(.*\) \[may need approval\] — /);
    expect(lineOf(text, 'http-request')).toMatch(/^- http-request\(.*\) \[needs approval\] — /);
    expect(lineOf(text, 'shell-exec')).not.toContain('[');
    expect(text).not.toContain('[needs confirmation]');
  });

  it('and in the named tools of a session with no toolset, for another principal by its own rules', async () => {
    const bot = await promptOf('bot', []);
    expect(lineOf(bot, 'file-write')).toMatch(/^- file-write \[may need approval\] — /);
    expect(lineOf(bot, 'http-request')).toMatch(/^- http-request \[needs approval\] — /);
    // the http-request rule is bot's: lead is shown nothing of it
    const lead = await promptOf('lead', ['repo', 'ops']);
    expect(lineOf(lead, 'file-write')).toMatch(/\[may need approval\]/);
    expect(lineOf(lead, 'http-request')).not.toContain('[');
  });

  it('are what enabling a toolset over MCP answers, and the instructions say how a pending call is waited for', async () => {
    const client = await mcpClient(gateway.url, 'bot');
    try {
      expect(client.getInstructions()).toContain('call approval_wait with that id');
      const enabled = (await client.callTool({ name: 'toolset', arguments: { action: 'enable', name: 'ops' } })) as CallToolResult;
      expect((enabled.structuredContent as { tools: string[] }).tools.find((line) => line.startsWith('http-request'))).toMatch(/\[needs approval\]/);
    } finally {
      await client.close();
    }
  });
});
