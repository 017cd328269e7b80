import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, echoTool, mcpClient, type PolicyGateway, startPolicyGateway, textOf } from './support.js';

// Review userZ11, U11-10: a tool's own require_confirm, asked of the person at an elicitation-capable client. The person
// pressed Cancel, and the same answer handed the model the confirmation token: its next `confirm` ran the call, with
// no second question — the Cancel button meant "let the model decide".

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({ 'tools/echo-confirm/TOOL.hdlp': echoTool('echo-confirm', 'constraints: { require_confirm: true }') });
});
afterAll(() => gateway?.stop());

describe('a require_confirm call the person at the MCP client cancels', () => {
  it('gives the model no token: confirm cannot run it, the request waits, and calling again asks the person again', async () => {
    const client = await mcpClient(gateway.url, 'admin', { capabilities: { elicitation: {} } });
    const answers: Array<'cancel' | 'accept'> = ['cancel', 'accept'];
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return answers.shift() === 'accept' ? { action: 'accept', content: {} } : { action: 'cancel' };
    });
    try {
      const cancelled = (await client.callTool({ name: 'echo-confirm', arguments: { text: 'one' } })) as CallToolResult;
      expect(asked).toBe(1);
      const pending = cancelled.structuredContent as { id: string; token?: string; status: string; reason: string };
      expect(pending.token).toBeUndefined();
      expect(pending.status).toBe('approval_required');
      expect(pending.reason).toContain('was asked to approve it and cancelled');
      expect(textOf(cancelled)).toContain('nothing has run');
      expect(textOf(cancelled)).not.toMatch(/call the confirm tool/);
      // the token exists in the store: the model never saw it, and a guess is no token
      const guessed = (await client.callTool({ name: 'confirm', arguments: { token: 'x'.repeat(32) } })) as CallToolResult;
      expect(guessed.isError).toBe(true);
      const state = await api(gateway.url, 'GET', `/v1/approvals/${pending.id}`, { who: 'admin' });
      expect(state.body).toMatchObject({ approval: { status: 'pending' }, receipt: null });
      const again = (await client.callTool({ name: 'echo-confirm', arguments: { text: 'one' } })) as CallToolResult;
      expect(asked).toBe(2);
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toMatchObject({ ok: true, output: 'one\n', approval: { status: 'approved', via: 'elicitation' } });
    } finally {
      await client.close();
    }
  });
});
