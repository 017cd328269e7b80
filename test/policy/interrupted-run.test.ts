import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, startGateway } from './support.js';

// An approved call whose gateway process died during the run stayed `approved` for good: no receipt, no
// approval.resolved event, and the caller's GET /v1/approvals/:id?wait= said approved / receipt null for ever, as if it
// were still running (review L, L5). The run is now leased to its process; once the lease lapses another process (or
// the same one restarted) closes it with a CANCELLED receipt saying it was interrupted, and it never runs again.

const SLOW_OP = [
  'name: slow-op', 'display: slow-op', 'intent: run a slow operation that leaves a trace', 'method: run', 'executor: shell', 'params_schema: {}',
  'shell: { script: "echo started >> runs.log; sleep 15; echo finished >> runs.log" }', 'constraints: { timeout_ms: 60000 }',
  'author: TEST-001', 'created: 2026-12-01', 'why: a run that is still going when its gateway dies',
].join('\n');
const FILES = {
  'tools/slow-op/TOOL.hdlp': SLOW_OP,
  'policies/slow.hdlp': ['name: slow', 'author: TEST-001', 'why: a person approves each slow run', 'approval:', '  - tools: [slow-op]', '    decision: approve', '    approvers: { roles: [approver] }'].join('\n'),
};
const PRINCIPALS = 'principals:\n  bot: { roles: [agent], tools: [slow-op] }\n  alice: { roles: [approver] }\n';
// renewed every third of it; lapsed six seconds after its process dies
const CONFIG = 'approvals: { run_lease_ms: 6000 }\n';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

/** A real `hldp serve` over `repo`, with its cache, data and workspace in `folder`; stopped after the test. */
async function serve(repo: string, folder: string, env: NodeJS.ProcessEnv = {}): Promise<{ url: string; service: ServiceProcess }> {
  await mkdir(folder, { recursive: true });
  const started = await startGateway(repo, folder, { principals: PRINCIPALS, config: CONFIG, logLevel: 'warn', env });
  cleanups.push(() => started.service.stop());
  return started;
}

/** bot's call of slow-op at `callAt`, approved by alice at `runAt`; resolves once the run has started there. */
async function approvedAndRunning(callAt: string, runAt: string, workspace: string): Promise<{ id: string; run: { by: string; lease_until: string } }> {
  const call = await api(callAt, 'POST', '/v1/call', { who: 'bot', body: { tool: 'slow-op', params: {} } });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  const id = call.body.id as string;
  // the approver's request is answered when the run ends: here, never
  void api(runAt, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} }).catch(() => undefined);
  await expect.poll(() => readFile(join(workspace, 'runs.log'), 'utf8').catch(() => ''), { timeout: 20_000, interval: 50 }).toBe('started\n');
  // which process runs it (host, pid, instance) is an admin's to read; its caller reads that a gateway does (review Z5, Z5-8)
  const toCaller = await api(callAt, 'GET', `/v1/approvals/${id}`, { who: 'bot' });
  expect(toCaller.body.approval).toMatchObject({ status: 'approved', receipt_id: null, run: { by: 'a gateway (an administrator can see which)' } });
  const running = await api(callAt, 'GET', `/v1/approvals/${id}`, { who: 'admin' });
  expect(running.body.approval).toMatchObject({ status: 'approved', receipt_id: null, run: { by: expect.stringMatching(/ pid \d+ \(instance [0-9a-f-]+\)$/) } });
  return { id, run: running.body.approval.run };
}

/** What the caller learns once the run's process is gone: the request approved, closed by a CANCELLED receipt saying it was interrupted. */
async function expectClosedAsInterrupted(url: string, id: string): Promise<string> {
  const waited = await api(url, 'GET', `/v1/approvals/${id}?wait=30`, { who: 'bot' });
  expect(waited.status).toBe(200);
  expect(waited.body.approval).toMatchObject({ id, status: 'approved', decided_by: 'alice' });
  expect(waited.body.receipt).toMatchObject({ ok: false, tool: 'slow-op', code: 'CANCELLED', confirmation: id, approval: { id, status: 'approved', decided_by: 'alice' } });
  expect(waited.body.receipt.error).toMatch(/interrupted: request 'apr_[^']+' was approved and its run started by a gateway, which stopped .*The call may have run in part or in whole/);
  // the receipt is its caller's: no host, pid or instance of the process that ran it or closed it (review Z5, Z5-8)
  expect(waited.body.receipt.error).not.toMatch(/ pid \d+|\(instance /);
  expect(waited.body.receipt.error).toContain('A gateway that found its lease lapsed closed it; an administrator can see which gateway ran it');
  expect(waited.body.approval.receipt_id).toBe(waited.body.receipt.id);
  return waited.body.receipt.id as string;
}

/**
 * The request still names the process that ran the call, with the lease it let lapse, to an admin; the one that closed
 * it (`url`'s) only held the run to close it (review userY, Y5: `run` was the closer's, with a fresh lease, and who ran
 * the call was in no record but the receipt's sentence, which names no process now: review Z5, Z5-8).
 */
async function expectRunKept(url: string, id: string, run: { by: string; lease_until: string }): Promise<void> {
  const closed = await api(url, 'GET', `/v1/approvals/${id}?wait=1`, { who: 'admin' });
  expect(closed.body.approval.run.by).toBe(run.by);
  // the lease it let lapse (renewed meanwhile, so not the one seen at the start): over before the closer's receipt
  expect(Date.parse(closed.body.approval.run.lease_until)).toBeLessThanOrEqual(Date.parse(closed.body.receipt.started_at));
}

describe('an approved call whose hldp serve is killed (SIGKILL) during the run, on SQLite', () => {
  it('is closed by the same gateway restarted: a CANCELLED receipt saying it was interrupted, approval.resolved, never run again', { timeout: 120_000 }, async () => {
    const { repo, temp } = await policyRepository(FILES);
    cleanups.push(() => temp.cleanup());
    const workspace = join(temp.path, 'workspace');
    const first = await serve(repo, temp.path);
    const { id, run } = await approvedAndRunning(first.url, first.url, workspace);
    first.service.child.kill('SIGKILL');
    await new Promise((resolve) => first.service.child.once('exit', resolve));

    const again = await serve(repo, temp.path);
    const receipt = await expectClosedAsInterrupted(again.url, id);
    await expectRunKept(again.url, id, run);
    const database = new BetterSqlite3(join(temp.path, 'data', 'receipts.db'), { readonly: true });
    cleanups.push(async () => database.close());
    // the event goes to the log after the receipt is stored (as every event does): looked for until it is there
    const resolved = () => database.prepare<[], { data: string }>("SELECT data FROM events WHERE type = 'approval.resolved'").all().map((row) => JSON.parse(row.data));
    await expect.poll(resolved, { timeout: 10_000, interval: 100 }).toEqual([expect.objectContaining({ approval: id, decision: 'approved', receipt, tool: 'slow-op', caller: 'bot' })]);
    // the killed run's shell never finished (or finished once), and nothing started it again
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await readFile(join(workspace, 'runs.log'), 'utf8')).match(/started/g)).toHaveLength(1);
  });
});

describeWithPostgres('an approved call whose instance is killed (SIGKILL) during the run, two hldp serve on one PostgreSQL database', () => {
  it('is closed by the other instance: a CANCELLED receipt saying it was interrupted, approval.resolved once, never run again', { timeout: 120_000 }, async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { repo, temp } = await policyRepository(FILES);
    cleanups.push(() => temp.cleanup());
    // the instances of one deployment run calls in one workspace: an instance of another may not run A's request
    const workspace = join(temp.path, 'workspace');
    await mkdir(workspace);
    const env = { HLDP_STORE_URL: database.url, HLDP_WORKSPACE: workspace };
    const [a, b] = [await serve(repo, join(temp.path, 'a'), env), await serve(repo, join(temp.path, 'b'), env)];
    // asked at A, approved and run at B, which is then killed
    const { id, run } = await approvedAndRunning(a.url, b.url, workspace);
    b.service.child.kill('SIGKILL');

    const receipt = await expectClosedAsInterrupted(a.url, id);
    await expectRunKept(a.url, id, run);
    const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    cleanups.push(() => sql.end());
    // the event goes to the log after the receipt is stored (as every event does): looked for until it is there
    const resolved = async () => (await sql<Array<{ data: string }>>`SELECT data FROM events WHERE type = 'approval.resolved'`).map((row) => JSON.parse(row.data));
    await expect.poll(resolved, { timeout: 10_000, interval: 100 }).toEqual([expect.objectContaining({ approval: id, decision: 'approved', receipt, tool: 'slow-op', caller: 'bot' })]);
    // a third instance started later finds nothing left to close, and nothing runs again
    const c = await serve(repo, join(temp.path, 'c'), env);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await api(c.url, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body.approval.receipt_id).toBe(receipt);
    expect((await sql`SELECT 1 FROM events WHERE type = 'approval.resolved'`).length).toBe(1);
    expect((await readFile(join(workspace, 'runs.log'), 'utf8')).match(/started/g)).toHaveLength(1);
  });
});
