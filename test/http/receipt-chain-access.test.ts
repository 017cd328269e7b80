import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestGateway } from '../helpers/gateway.js';
import { api, type PolicyGateway, startPolicyGateway, type Who } from '../policy/support.js';

// a real `hldp serve` with principals: bot and lead are agents, alice an approver, admin the api_token
let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({});
});
afterAll(() => gateway?.stop());

describe('GET /v1/receipts/verify', () => {
  describe('when an agent asks', () => {
    it.each<Who>(['bot', 'lead'])('answers %s 403 ROLE_REQUIRED and walks nothing', async (who) => {
      const refused = await api(gateway.url, 'GET', '/v1/receipts/verify', { who });
      expect(refused).toMatchObject({ status: 403, body: { code: 'ROLE_REQUIRED', error: expect.stringContaining('admin or approver') } });
      expect(refused.body.checked).toBeUndefined();
    });
  });

  describe('when an admin or an approver asks', () => {
    it.each<Who>(['admin', 'alice'])('answers %s with the chain report', async (who) => {
      await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'shell-exec', params: { cmd: 'echo chained' } } });
      const report = await api(gateway.url, 'GET', '/v1/receipts/verify', { who });
      expect(report).toMatchObject({ status: 200, body: { ok: true, checked: expect.any(Number) } });
      expect(report.body.checked).toBeGreaterThan(0);
    });
  });
});

describe('Gateway.verifyReceipts', () => {
  describe('when asked again while a walk runs', () => {
    it('answers with that walk rather than start another, and walks afresh once it is over', async () => {
      const { gateway: opened, cleanup: close } = await openTestGateway('native-repo');
      try {
        await opened.call('shell-exec', { cmd: 'echo one' });
        const first = opened.verifyReceipts();
        expect(opened.verifyReceipts()).toBe(first);
        expect(await first).toMatchObject({ ok: true, checked: 1 });
        const later = opened.verifyReceipts();
        expect(later).not.toBe(first);
        expect(await later).toMatchObject({ ok: true, checked: 1 });
      } finally {
        await close();
      }
    });
  });
});
