import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { api, PRINCIPALS_YAML, startPolicyGateway, TOKENS, type PolicyGateway } from '../policy/support.js';

// GET /metrics counts every principal's calls by tool, executor and outcome: any agent read what every other principal
// called and how it went (review J). Now admins, approvers (who read every caller's receipts anyway) and a principal
// with the `metrics` role, the Prometheus scraper's, read them; an agent is refused.
const SCRAPER_TOKEN = 'scraper-token-0123456789abcdef';
const PRINCIPALS = `${PRINCIPALS_YAML}  prometheus: { roles: [metrics], token_sha256: ${hashToken(SCRAPER_TOKEN)} }\n`;

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({}, { principals: PRINCIPALS });
  // an agent's call, which the metrics count
  expect((await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-read', params: { path: 'nothing-here.txt' } } })).status).toBe(200);
}, 60_000);
afterAll(() => gateway.stop());

async function metrics(token: string | undefined): Promise<{ status: number; text: string }> {
  const response = await fetch(`${gateway.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, text: await response.text() };
}

describe('GET /metrics', () => {
  describe('when an agent asks', () => {
    it('answers 403 ROLE_REQUIRED, naming the roles that may read them, and none of the counts', async () => {
      for (const token of [TOKENS.bot, TOKENS.lead]) {
        const answer = await metrics(token);
        expect(answer.status).toBe(403);
        expect(JSON.parse(answer.text)).toMatchObject({ code: 'ROLE_REQUIRED', error: expect.stringContaining('roles: [metrics]') });
        expect(answer.text).not.toContain('hldp_calls_total');
      }
    });
  });

  describe('when an admin, an approver or the scraper\'s metrics principal asks', () => {
    it('answers the Prometheus text, with every principal\'s calls counted', async () => {
      for (const token of [TOKENS.admin, TOKENS.alice, TOKENS.bob, SCRAPER_TOKEN]) {
        const answer = await metrics(token);
        expect(answer.status).toBe(200);
        expect(answer.text).toMatch(/hldp_calls_total\{tool="file-read"/);
      }
    });
  });

  describe('when the metrics principal does anything else', () => {
    it('may call no tool: the role reads metrics and nothing more', async () => {
      const call = await api(gateway.url, 'POST', '/v1/call', { token: SCRAPER_TOKEN, body: { tool: 'file-read', params: { path: 'x.txt' } } });
      expect(call.status).toBe(403);
      expect(call.body.code).toBe('TOOL_FORBIDDEN');
    });
  });

  describe('without a token', () => {
    it('answers 401', async () => {
      expect((await metrics(undefined)).status).toBe(401);
    });
  });
});
