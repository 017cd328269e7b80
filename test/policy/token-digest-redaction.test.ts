import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { api, PRINCIPALS_YAML, startPolicyGateway, TOKENS, type PolicyGateway } from './support.js';

// A principal configured the way the README recommends, by token_sha256, gave the gateway no clear token to redact:
// its token pasted into params, or printed by a tool, was stored in the receipt (hash-chained), the event, the
// rejected-call record and the answer (review J F6). The gateway sees the clear token when it authenticates a request.
const OPS_TOKEN = 'ops-token-0123456789abcdef';
const PRINCIPALS = `${PRINCIPALS_YAML}  ops: { roles: [agent], token_sha256: ${hashToken(OPS_TOKEN)} }\n`;

let gateway: PolicyGateway;
let data: string;

beforeAll(async () => {
  gateway = await startPolicyGateway({}, { principals: PRINCIPALS });
  data = join(gateway.folder, 'data');
}, 60_000);
afterAll(() => gateway.stop());

/** Every byte the store's files hold (the SQLite database and its WAL), as text. */
async function storedBytes(): Promise<string> {
  const names = await readdir(data);
  return (await Promise.all(names.map((name) => readFile(join(data, name)).catch(() => Buffer.alloc(0))))).map((bytes) => bytes.toString('latin1')).join('\n');
}

describe('a token_sha256 principal\'s token pasted into a call', () => {
  describe('when it is the calling request\'s own bearer token', () => {
    it('is [REDACTED] in the answer, the stored receipt and the rejected-call record', async () => {
      const call = await api(gateway.url, 'POST', '/v1/call', { token: OPS_TOKEN, body: { tool: 'file-read', params: { path: `notes-${OPS_TOKEN}.txt` } } });
      expect(call.status).toBe(200);
      expect(call.body.params).toMatchObject({ path: 'notes-[REDACTED].txt' });
      expect(JSON.stringify(call.body)).not.toContain(OPS_TOKEN);
      const stored = await api(gateway.url, 'GET', `/v1/receipts/${call.body.id}`, { who: 'admin' });
      expect(stored.body.params).toMatchObject({ path: 'notes-[REDACTED].txt' });
      // refused before it ran: kept in the rejected calls, with its params
      const refused = await api(gateway.url, 'POST', '/v1/call', { token: OPS_TOKEN, body: { tool: 'file-read', params: { path: 3, note: OPS_TOKEN } } });
      expect(refused.status).toBe(422);
      const rejections = await api(gateway.url, 'GET', '/v1/rejections?caller=ops', { who: 'admin' });
      expect(rejections.body.rejections[0].params).toMatchObject({ note: '[REDACTED]' });
    });
  });

  describe('when another principal\'s token, which authenticated here before, is pasted', () => {
    it('is [REDACTED] as well (known in memory only from its authentication)', async () => {
      expect((await api(gateway.url, 'GET', '/v1/approvals', { who: 'bob' })).status).toBe(200);
      const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-read', params: { path: `notes-${TOKENS.bob}.txt` } } });
      expect(call.body.params).toMatchObject({ path: 'notes-[REDACTED].txt' });
      expect(call.body.error).toContain('notes-[REDACTED].txt');
      expect(JSON.stringify(call.body)).not.toContain(TOKENS.bob);
    });
  });

  describe('once the gateway has stopped', () => {
    it('left neither token in the store (receipts, events, rejected calls) nor in its log', async () => {
      await gateway.service.stop();
      const bytes = await storedBytes();
      expect(bytes).toContain('notes-[REDACTED].txt');
      expect(bytes).toContain('receipt.stored');
      for (const token of [OPS_TOKEN, TOKENS.bob]) {
        expect(bytes).not.toContain(token);
        expect(gateway.service.stderr()).not.toContain(token);
      }
    });
  });
});
