// POST /v1/confirm answered by a gateway process held up past its run's lease (stopped, or its event loop blocked)
// while another process sharing the store closed the request as interrupted: the answer was 200 and the run's receipt,
// ok: true, as if it were the confirmation's outcome, where the request is resolved by the other, CANCELLED, receipt
// (`hldp confirm` warns and exits 1 since review O, O10; the HTTP API dropped `lease_lapsed`). Now the answer is 409
// LEASE_LAPSED, naming the receipt that resolves the request, with the run's receipt in it. Two real `hldp serve`
// processes over one repository and one SQLite store.
import { afterEach, describe, expect, it } from 'vitest';
import { api, policyRepository, startGateway } from './support.js';

const SLOW_DEPLOY = [
  'name: slow-deploy', 'display: slow-deploy', 'intent: deploy slowly after its caller confirms', 'method: run', 'executor: shell', 'params_schema: {}',
  'shell: { script: "sleep 5; echo deployed" }', 'constraints: { timeout_ms: 60000, require_confirm: true }',
  'author: TEST-001', 'created: 2026-12-04', 'why: a confirmed run still going when the gateway process running it stalls',
].join('\n');
const PRINCIPALS = 'principals:\n  bot: { roles: [agent], tools: [slow-deploy] }\n';
// the least lease the config allows: lapsed a second after its runner stops renewing it
const LEASE_ENV = { HLDP_APPROVAL_RUN_LEASE_MS: '1000' };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

describe('POST /v1/confirm', () => {
  describe('when the gateway process running the confirmed call is stopped past its lease and another closes the request as interrupted', () => {
    it('answers 409 LEASE_LAPSED naming the receipt that resolves the request, the run\'s receipt in the answer', { timeout: 120_000 }, async () => {
      const { repo, temp } = await policyRepository({ 'tools/slow-deploy/TOOL.hdlp': SLOW_DEPLOY });
      cleanups.push(() => temp.cleanup());
      const running = await startGateway(repo, temp.path, { principals: PRINCIPALS, logLevel: 'warn', env: LEASE_ENV });
      cleanups.push(() => running.service.stop());
      const other = await startGateway(repo, temp.path, { principals: PRINCIPALS, logLevel: 'warn', env: LEASE_ENV });
      cleanups.push(() => other.service.stop());

      const call = await api(running.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'slow-deploy', params: {} } });
      expect(call.status, JSON.stringify(call.body)).toBe(202);
      const { id, token } = call.body as { id: string; token: string };
      const confirmed = api(running.url, 'POST', '/v1/confirm', { who: 'bot', body: { token } });

      // the first process holds the run: then it stops, as a process held up does
      const pid = running.service.child.pid!;
      const runBy = async () => ((await api(other.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval.run?.by as string | undefined) ?? '';
      await expect.poll(runBy, { timeout: 30_000, interval: 50 }).toContain(` pid ${pid} `);
      running.service.child.kill('SIGSTOP');
      cleanups.push(async () => running.service.child.kill('SIGCONT'));
      // the other finds the lease lapsed and closes the request: a CANCELLED receipt saying the run was interrupted
      const closed = await api(other.url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
      expect(closed.body.receipt).toMatchObject({ ok: false, code: 'CANCELLED', confirmation: id });
      const interrupted = closed.body.receipt.id as string;

      running.service.child.kill('SIGCONT');
      const answer = await confirmed;
      // the call did run; its receipt is in the answer, stored, but it is not the request's outcome
      expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(409);
      expect(answer.body).toMatchObject({ code: 'LEASE_LAPSED', resolved_by: interrupted, receipt: { ok: true, output: 'deployed\n', confirmation: id } });
      expect(answer.body.error).toMatch(/the lease of this run lapsed while it ran .* closed request 'apr_[^']+' as interrupted meanwhile: the request is resolved by receipt /);
      const stored = await api(running.url, 'GET', `/v1/receipts/${answer.body.receipt.id}`, { who: 'bot' });
      expect(stored.body).toMatchObject({ id: answer.body.receipt.id, ok: true });
      expect((await api(other.url, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body.approval.receipt_id).toBe(interrupted);
    });
  });
});
