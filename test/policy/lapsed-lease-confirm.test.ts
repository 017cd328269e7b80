// Review O, O10: an `hldp confirm` held up past its run's lease (stopped like Ctrl-Z) had its request closed as
// interrupted by the gateway while the run went on; when it came back, its own receipt was stored too, a second
// approval.resolved was sent for the one request, and the CLI printed its receipt as if it were the outcome, said
// nothing and exited 0. Now the request keeps one outcome (the first receipt recorded), approval.resolved goes out
// once, and the CLI says plainly that its lease lapsed and exits 1.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { HLDP_BIN, track } from '../helpers/run-cli.js';
import { api, policyRepository, startGateway, TOKENS } from './support.js';

const SLOW_DEPLOY = [
  'name: slow-deploy', 'display: slow-deploy', 'intent: deploy slowly after its caller confirms', 'method: run', 'executor: shell', 'params_schema: {}',
  'shell: { script: "sleep 5; echo deployed >> runs.log; echo deployed" }', 'constraints: { timeout_ms: 60000, require_confirm: true }',
  'author: TEST-001', 'created: 2026-12-04', 'why: a confirmed run still going when its confirming process stalls',
].join('\n');
const PRINCIPALS = 'principals:\n  bot: { roles: [agent], tools: [slow-deploy] }\n';
// the least lease the config allows, for the gateway and the CLI alike: lapsed a second after its runner stops renewing it
const LEASE_ENV = { HLDP_APPROVAL_RUN_LEASE_MS: '1000' };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

describe('hldp confirm', () => {
  describe('when it is stopped (SIGSTOP, as Ctrl-Z) past its run\'s lease and the gateway closes the request as interrupted meanwhile', () => {
    it('says on resuming that its lease lapsed and exits 1; the request keeps the one outcome and approval.resolved is sent once', { timeout: 120_000 }, async () => {
      const { repo, temp } = await policyRepository({ 'tools/slow-deploy/TOOL.hdlp': SLOW_DEPLOY });
      cleanups.push(() => temp.cleanup());
      const gateway = await startGateway(repo, temp.path, { principals: PRINCIPALS, logLevel: 'warn', env: LEASE_ENV });
      cleanups.push(() => gateway.service.stop());

      const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'slow-deploy', params: {} } });
      expect(call.status, JSON.stringify(call.body)).toBe(202);
      const { id, token } = call.body as { id: string; token: string };

      // bot confirms with the CLI, over the gateway's repository, config and data folder (one SQLite store)
      const child = track(spawn(process.execPath, [HLDP_BIN, 'confirm', token, '--repo', repo, '--config', gateway.configFile, '--json'], { env: { ...process.env, ...gateway.env, HLDP_TOKEN: TOKENS.bot }, stdio: ['ignore', 'pipe', 'pipe'] }));
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

      // the CLI approved it and holds its run: then it stops, as a shell's Ctrl-Z stops it
      const runBy = async () => ((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval.run?.by as string | undefined) ?? '';
      await expect.poll(runBy, { timeout: 30_000, interval: 50 }).toContain(` pid ${child.pid} `);
      child.kill('SIGSTOP');
      // the gateway finds the lease lapsed and closes the request: a CANCELLED receipt saying the run was interrupted
      const closed = await api(gateway.url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
      expect(closed.body.receipt).toMatchObject({ ok: false, code: 'CANCELLED', confirmation: id });
      expect(closed.body.receipt.error).toContain('interrupted');
      const interrupted = closed.body.receipt.id as string;

      child.kill('SIGCONT');
      const [code] = await exited;
      // the run did happen: its receipt is printed and stored, but the CLI does not call it the confirmation's outcome
      expect(code, stderr).toBe(1);
      const printed = JSON.parse(stdout) as { ok: boolean; id: string; output: string; lease_lapsed: { resolved_by: string; error: string } };
      expect(printed).toMatchObject({ ok: true, output: 'deployed\n', lease_lapsed: { resolved_by: interrupted } });
      expect(stderr).toMatch(/hldp: WARNING: the lease of this run lapsed while it ran \(this process was held up .* for longer than approvals\.run_lease_ms, 1000 ms\), and .* closed request 'apr_[^']+' as interrupted meanwhile: the request is resolved by receipt /);
      expect(stderr).toContain(`its receipt ${printed.id} is stored, but it is not the request's outcome`);

      // the request keeps its one outcome
      const after = await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'bot' });
      expect(after.body.approval.receipt_id).toBe(interrupted);
      // both receipts are stored, announced as receipts; the request is resolved once, by the first
      const database = new BetterSqlite3(join(temp.path, 'data', 'receipts.db'), { readonly: true });
      cleanups.push(async () => database.close());
      const events = (type: string) => database.prepare<[string], { data: string }>('SELECT data FROM events WHERE type = ?').all(type).map((row) => JSON.parse(row.data) as Record<string, unknown>);
      // the gateway's events go to the log after its receipt is stored; the CLI's before it exited
      await expect.poll(() => events('receipt.stored').map((event) => event.receipt).sort(), { timeout: 10_000, interval: 100 }).toEqual([interrupted, printed.id].sort());
      expect(events('approval.resolved')).toEqual([expect.objectContaining({ approval: id, receipt: interrupted })]);
    });
  });
});
