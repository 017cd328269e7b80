import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoTool, mcpClient, TOKENS, type PolicyGateway, startPolicyGateway } from './support.js';

// Review K's K2: the MCP elicitation prompt showed an agent's params raw — a right-to-left override made the person
// read another path than the one that runs, and a configured secret pasted into the params was shown in clear,
// where the console and the API show escapes and [REDACTED].

const POLICY = ['name: ask', 'author: TEST-001', 'why: tests', 'approval:', '  - tools: [echo-ask]', '    decision: approve', '    elicit: true', '    reason: a person looks first'].join('\n');

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({ 'tools/echo-ask/TOOL.hdlp': echoTool('echo-ask'), 'policies/ask.hdlp': POLICY });
});
afterAll(() => gateway?.stop());

describe('the MCP elicitation prompt of a call waiting for a person', () => {
  it('shows hidden and reordering characters as escapes, and no configured secret', async () => {
    const client = await mcpClient(gateway.url, 'admin', { capabilities: { elicitation: {} } });
    const asked: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'decline' };
    });
    try {
      await client.callTool({ name: 'tool_call', arguments: { name: 'echo-ask', params: { text: `rm -rf /srv/\u202etxt.golb\u202c\u200b token ${TOKENS.alice}` } } });
    } finally {
      await client.close();
    }
    expect(asked).toHaveLength(1);
    const message = asked[0]!.message;
    expect(message).toContain('rm -rf /srv/\\u202etxt.golb\\u202c\\u200b token [REDACTED]');
    expect(message).not.toMatch(/[\u202a-\u202e\u200b\u2066-\u2069]/u);
    expect(message).not.toContain(TOKENS.alice);
  });
});
