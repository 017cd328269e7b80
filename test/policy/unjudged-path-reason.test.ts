// Review userZ5, F7: a deny rule over `logs/**` refused `/etc` and `../..` — as designed, a deny or approve rule takes a
// path it cannot judge (out of the tool's root) — but its receipt said only the rule's reason, "no logs": the agent and
// whoever reads the receipt were told a non-log path was refused for being a log. The reason now says why it matched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startPolicyGateway, type PolicyGateway } from './support.js';

const GUARD = [
  'name: guard', 'author: TEST-001', 'why: logs stay private', 'approval:',
  '  - tools: [file-read]', '    when: { path: { glob: "logs/**" } }', '    decision: deny', '    reason: no logs',
].join('\n');
const UNJUDGED = 'the rule matched because a path could not be judged';

describe('a deny rule over a glob, and a path it cannot judge (review userZ5, F7)', () => {
  let gateway: PolicyGateway;
  beforeAll(async () => {
    gateway = await startPolicyGateway({ 'policies/guard.hdlp': GUARD }, { logLevel: 'warn' });
  }, 120_000);
  afterAll(async () => gateway?.stop(), 60_000);

  it('says in the DENIED receipt that the path could not be judged, for a path outside the root; not for a log', { timeout: 60_000 }, async () => {
    for (const path of ['/etc/hostname', '../..']) {
      const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-read', params: { path } } });
      expect(call.body, path).toMatchObject({ ok: false, code: 'DENIED' });
      expect(call.body.error).toContain('no logs (policies/guard.hdlp:5:5); ' + UNJUDGED);
    }
    const log = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-read', params: { path: 'logs/app.log' } } });
    expect(log.body).toMatchObject({ ok: false, code: 'DENIED' });
    expect(log.body.error).toMatch(/no logs \(policies\/guard\.hdlp:5:5\)$/);
  });
});
