// Review Z5, Z5-8 to Z5-11. "An approver decides anywhere; the call runs where it was filed" (review userZ4, F3) left
// the gateway that claims an approved request trusting the deciding instance's word on who may decide: an instance
// whose config made 'alice' an approver made the filing gateway, where alice is none, run the call (Z5-9), and an
// instance without credentials made it run on the word of anyone who reached it. The deciding instance judged the
// call by its own registry and principals, and cancelled as outdated what the filer would have run (Z5-10). A caller
// reading its request was shown the claiming gateway's host and pid (Z5-8). And a sweep read the oldest 100 requests
// approved elsewhere each second, so 100 whose filer was gone hid every newer one from it (Z5-11).
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { api, deployOnOneStore, policyRepository, receiptOf, TOKENS } from './support.js';

const HELD = [
  'name: held', 'author: TEST-001', 'why: a person looks at writes and commands first', 'approval:',
  '  - tools: [file-write, shell-exec]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');

const BOB = `  bob: { roles: [approver], token_sha256: ${hashToken(TOKENS.bob)} }\n`;
// A, where the calls are filed and run: alice is an agent there, no approver
const AT_A = `principals:\n  bot: { roles: [agent], tools: [file-write, shell-exec] }\n  alice: { roles: [agent] }\n${BOB}`;
// B, another workspace on the same store: alice is an approver, and bot's base list has no file-write
const AT_B = `principals:\n  bot: { roles: [agent], tools: [shell-exec] }\n  alice: { roles: [approver] }\n${BOB}`;

interface Deployment {
  a: string;
  b: string;
  /** another workspace over another commit, whose policies differ from those the requests were judged against */
  other: string;
  /** an instance with no credentials at all (loopback): every caller is `local` */
  open: string;
  wsA: string;
  /** stores `count` copies of request `template`, approved an hour ago for a place no gateway serves, unexpired */
  strand(template: string, count: number): Promise<void>;
  stop(): Promise<void>;
}

/** A copy of a stored request's row, approved an hour ago (plus `index` ms) at another instance, for a place no gateway serves, unexpired. */
function stranded(row: Record<string, unknown>, index: number, now: number): Record<string, unknown> {
  const rule = JSON.parse(row.rule as string) as { place: { workspace: string } };
  rule.place.workspace = '/srv/a-gateway-long-gone';
  return { ...row, id: `apr_gone${String(index).padStart(12, '0')}`, token_hash: null, rule: JSON.stringify(rule), status: 'approved', decided_ms: now - 3_600_000 + index, decided_by: 'bob', decided_via: 'api', expires_ms: now + 3_600_000, receipt_id: null, run_by: null, run_lease_ms: null };
}

function deploy(store: 'sqlite' | 'postgres'): Promise<Deployment> {
  return deployOnOneStore(store, { 'policies/held.hdlp': HELD }, async (on) => {
    const strand = on.postgres !== undefined ? strandInPostgres(on.postgres) : strandInSqlite(on.sqlite!);
    // one after another: the first sets the store up
    const a = (await on.start('a', { principals: AT_A })).url;
    const b = (await on.start('b', { principals: AT_B })).url;
    const another = await policyRepository({ 'policies/held.hdlp': HELD, 'policies/reads.hdlp': ['name: reads', 'author: TEST-001', 'why: reads are logged', 'approval:', '  - tools: [file-read]', '    decision: allow'].join('\n') });
    on.onStop(() => another.temp.cleanup());
    const other = (await on.start('other', { principals: AT_B, repo: another.repo })).url;
    const folder = join(on.folder, 'open');
    await mkdir(join(folder, 'workspace'), { recursive: true });
    const environment: NodeJS.ProcessEnv = { ...on.env, HLDP_CACHE_DIR: join(folder, 'cache'), HLDP_WORKSPACE: join(folder, 'workspace'), HLDP_POLL_INTERVAL_MS: '600000', HLDP_LOG_LEVEL: 'warn' };
    // no api_token, no principals: a loopback gateway without credentials
    const open: ServiceProcess = await spawnService(['serve', '--port', '0', '--repo', on.repo], { ...environment, HLDP_API_TOKEN: undefined, HLDP_CONFIG: undefined }, / at (http:\/\/[\d.:]+)\n/);
    on.onStop(() => open.stop());
    return { a, b, other, open: open.url, wsA: join(on.folder, 'a', 'workspace'), strand };
  });
}

/** `strand` on the PostgreSQL database at `url`. */
function strandInPostgres(url: string): Deployment['strand'] {
  return async (template, count) => {
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const [row] = await sql<Array<Record<string, unknown>>>`SELECT * FROM approvals WHERE id = ${template}`;
      const now = Date.now();
      await sql`INSERT INTO approvals ${sql(Array.from({ length: count }, (_, index) => stranded(row!, index, now)))}`;
    } finally {
      await sql.end();
    }
  };
}

/** `strand` in the SQLite file at `file`. */
function strandInSqlite(file: string): Deployment['strand'] {
  return async (template, count) => {
    const database = new Database(file);
    try {
      const row = database.prepare('SELECT * FROM approvals WHERE id = ?').get(template) as Record<string, unknown>;
      const columns = Object.keys(row);
      const insert = database.prepare(`INSERT INTO approvals (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`);
      const now = Date.now();
      database.transaction(() => {
        for (let index = 0; index < count; index += 1) insert.run(stranded(row, index, now));
      })();
    } finally {
      database.close();
    }
  };
}

/** bot's call filed at `url`: the request's id. */
async function filed(url: string, tool: 'file-write' | 'shell-exec', params: Record<string, unknown>): Promise<string> {
  const call = await api(url, 'POST', '/v1/call', { who: 'bot', body: { tool, params } });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  return call.body.id as string;
}

const HOSTS = / pid \d+|\(instance |https?:\/\//;

function acrossInstances(store: 'sqlite' | 'postgres'): void {
  let deployment: Deployment;
  beforeAll(async () => {
    deployment = await deploy(store);
  }, 300_000);
  afterAll(async () => deployment?.stop(), 60_000);

  it("does not run a call approved by one who is an approver at the deciding instance only: a CANCELLED receipt saying why, nothing ran (Z5-9)", { timeout: 180_000 }, async () => {
    const { a, b, wsA } = deployment;
    const id = await filed(a, 'shell-exec', { cmd: 'echo ran > alice-approved.txt' });
    const approved = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);

    const settled = await receiptOf(a, id);
    expect(settled.receipt).toMatchObject({ ok: false, code: 'CANCELLED', output: '', caller: 'bot', approval: { id, decided_by: 'alice' } });
    expect(settled.receipt.error).toContain(`approved by 'alice', who may not decide it at the gateway that runs it: principal 'alice' may not decide this request: it is for role approver or admin`);
    expect(settled.receipt.error).toContain(`nothing ran, and request '${id}' is closed`);
    expect(settled.receipt.error).not.toMatch(HOSTS);
    expect(await readFile(join(wsA, 'alice-approved.txt'), 'utf8').catch(() => undefined)).toBeUndefined();
  });

  it("records an approval at an instance that would not let the caller call the tool (202), and the filer, which does, runs it; the caller reads no host or pid of the gateway that ran it (Z5-10, Z5-8)", { timeout: 180_000 }, async () => {
    const { a, b, wsA } = deployment;
    const id = await filed(a, 'file-write', { path: 'bob-approved.txt', content: 'ran\n' });
    const approved = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'bob', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    expect(approved.body.approval).toMatchObject({ id, status: 'approved', decided_by: 'bob', run: null });

    const settled = await receiptOf(a, id);
    expect(settled.receipt).toMatchObject({ ok: true, caller: 'bot', approval: { id, decided_by: 'bob' } });
    expect(await readFile(join(wsA, 'bob-approved.txt'), 'utf8')).toBe('ran\n');
    // the caller, and an approver who is no admin, read that a gateway ran it, not which; an admin reads which
    expect(settled.approval.run).toEqual({ by: 'a gateway (an administrator can see which)', lease_until: expect.any(String) });
    expect(JSON.stringify(settled.approval)).not.toMatch(/ pid \d+|\(instance /);
    const toBob = await api(b, 'GET', `/v1/approvals/${id}`, { who: 'bob' });
    expect(JSON.stringify(toBob.body.approval)).not.toMatch(/ pid \d+|\(instance /);
    const toAdmin = await api(b, 'GET', `/v1/approvals/${id}`, { who: 'admin' });
    expect(toAdmin.body.approval.run.by).toMatch(/ pid \d+ \(instance [0-9a-f-]+\)$/);
  });

  it("records an approval at an instance over another commit, whose policies differ (202; its console offers Approve, not Close as outdated), and the filer runs it (Z5-10)", { timeout: 180_000 }, async () => {
    const { a, other, wsA } = deployment;
    const id = await filed(a, 'shell-exec', { cmd: 'echo ran > other-commit.txt' });
    const cookie = await signInToConsole(other, TOKENS.bob);
    const page = await (await fetch(`${other}/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(page).toContain('data-elsewhere="true"');
    expect(page).not.toContain('data-outdated');
    expect(page).not.toContain('Close as outdated');
    expect(page).toContain('Approve — it runs at the gateway that filed it');
    const approved = await api(other, 'POST', `/v1/approvals/${id}/approve`, { who: 'bob', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    const settled = await receiptOf(a, id);
    expect(settled.receipt).toMatchObject({ ok: true, caller: 'bot', approval: { id, decided_by: 'bob' } });
    expect(await readFile(join(wsA, 'other-commit.txt'), 'utf8')).toBe('ran\n');
  });

  it("refuses, at an instance without credentials, to approve a named caller's request that runs elsewhere: 409, it stays pending, and the filer runs nothing (Z5-9)", { timeout: 180_000 }, async () => {
    const { a, open, wsA } = deployment;
    const id = await filed(a, 'shell-exec', { cmd: 'echo ran > anyone-approved.txt' });
    const refused = await api(open, 'POST', `/v1/approvals/${id}/approve`, { body: {} });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body).toMatchObject({ code: 'APPROVAL_MISMATCH', approval: { id, status: 'pending', decided_by: null } });
    expect(refused.body.error).toContain("this instance has no credentials (every caller here is 'local')");
    expect(refused.body.error).toContain('it stays pending');
    expect((await api(a, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body.approval).toMatchObject({ status: 'pending', decided_by: null, receipt_id: null });
    // it may deny it
    const denied = await api(open, 'POST', `/v1/approvals/${id}/deny`, { body: { reason: 'no' } });
    expect(denied.body, JSON.stringify(denied.body)).toMatchObject({ approval: { status: 'denied', decided_by: 'local' }, receipt: { code: 'DENIED' } });
    expect(await readFile(join(wsA, 'anyone-approved.txt'), 'utf8').catch(() => undefined)).toBeUndefined();
  });

  it('runs a request approved elsewhere behind more than 100 that no gateway runs (their filer gone), with no caller waiting: its sweep reaches it (Z5-11)', { timeout: 180_000 }, async () => {
    const { a, b, wsA } = deployment;
    // 120 requests approved an hour ago at another instance, for a place no gateway serves, unexpired
    await deployment.strand(await filed(a, 'file-write', { path: 'never.txt', content: 'never\n' }), 120);
    const id = await filed(a, 'shell-exec', { cmd: 'echo ran > swept.txt' });
    const approved = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'bob', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    // read at B, which does not run it (a read at A would have A's waiter take it): only A's sweep can run it
    await expect.poll(async () => (await api(b, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval.receipt_id, { timeout: 60_000, interval: 500 }).not.toBeNull();
    expect(await readFile(join(wsA, 'swept.txt'), 'utf8')).toBe('ran\n');
    expect((await api(b, 'GET', `/v1/approvals/apr_gone000000000000`, { who: 'admin' })).body.approval).toMatchObject({ status: 'approved', run: null, receipt_id: null });
  });
}

describe('the gateway that runs a call approved at another instance: three hldp serve and one without credentials on one SQLite store (review Z5)', () => {
  acrossInstances('sqlite');
});

describeWithPostgres('the gateway that runs a call approved at another instance: three hldp serve and one without credentials on one PostgreSQL database (review Z5)', () => {
  acrossInstances('postgres');
});
