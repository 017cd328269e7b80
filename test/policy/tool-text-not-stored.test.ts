import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from '../helpers/sse-client.js';
import { api, TOKENS, type PolicyGateway, startPolicyGateway } from './support.js';

// Review K's K17: the gateway told a receipt the store could not take by the text RECEIPT_NOT_STORED: in its error,
// which for a failed run holds the tool's own stderr — so a tool printing it hid its failure from the events and
// left its approval without its receipt. Whether a receipt was stored is the gateway's to know, never the tool's text.

const SAYS = 'echo "RECEIPT_NOT_STORED: nothing to see here" >&2; exit 1';
const tool = (name: string, extra = '') => [
  `name: ${name}`, `display: ${name}`, 'intent: fails with a message on stderr', 'method: run', 'executor: shell',
  'params_schema: {}', `shell: { argv: [sh, "-c", ${JSON.stringify(SAYS)}] }`, 'author: TEST-001', 'created: 2026-12-01', `why: tests need ${name}`, extra,
].join('\n');

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({ 'tools/liar/TOOL.hdlp': tool('liar'), 'tools/liar-confirm/TOOL.hdlp': tool('liar-confirm', 'constraints: { require_confirm: true }') });
});
afterAll(() => gateway?.stop());

describe('a tool whose stderr says RECEIPT_NOT_STORED:', () => {
  it('still has its failure announced as receipt.stored', async () => {
    const stream = await openSse(`${gateway.url}/v1/events?types=receipt.stored`, { authorization: `Bearer ${TOKENS.admin}` });
    try {
      const failed = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'liar', params: {} } });
      expect(failed.body).toMatchObject({ ok: false, error: expect.stringContaining('RECEIPT_NOT_STORED: nothing to see here') });
      expect((await api(gateway.url, 'GET', `/v1/receipts/${failed.body.id}`, { who: 'admin' })).status).toBe(200);
      const stored = await stream.next((message) => JSON.parse(message.data).data?.receipt === failed.body.id, 10_000);
      expect(JSON.parse(stored.data)).toMatchObject({ type: 'receipt.stored', data: { receipt: failed.body.id, ok: false } });
    } finally {
      stream.close();
    }
  });

  it('still links its confirmed request to its receipt', async () => {
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'liar-confirm', params: {} } });
    expect(pending.body).toMatchObject({ status: 'confirmation_required', token: expect.any(String) });
    const confirmed = await api(gateway.url, 'POST', '/v1/confirm', { who: 'admin', body: { token: pending.body.token } });
    expect(confirmed.body).toMatchObject({ ok: false, error: expect.stringContaining('RECEIPT_NOT_STORED: nothing to see here') });
    const request = await api(gateway.url, 'GET', `/v1/approvals/${pending.body.id}`, { who: 'admin' });
    expect(request.body).toMatchObject({ approval: { id: pending.body.id, status: 'approved', receipt_id: confirmed.body.id } });
  });
});
