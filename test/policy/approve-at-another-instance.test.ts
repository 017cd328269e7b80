// Serving instances sharing a store ran each other's approved requests whatever their workspaces: an approver at
// instance B approving a request filed at A ran the agent's call in B's workspace, or with nothing of A's
// `sandbox.hide` hidden from it — what `hldp approvals approve` already refused (review userY, Y8; review Z). Then an
// instance whose own place differed from the request's decided nothing (409), which left the agents of README's own
// deployment with no one to approve their calls (review userZ4, F3). Now the decision is recorded anywhere (202,
// nothing ran there) and the call runs where it was filed: an instance of the request's place claims its run, once
// across instances (A and A2 race for it), and runs it there; the console says so on the request's page.
import { realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, deployOnOneStore, receiptOf, TOKENS } from './support.js';

// a write to tok-* is the caller's to confirm (a token); any other write, and every command, waits for an approver
const HELD = [
  'name: held', 'author: TEST-001', 'why: a person looks at writes and commands first', 'approval:',
  '  - tools: [file-write]', '    when: { path: { glob: "tok-*" } }', '    decision: approve', '    self_approval: true',
  '  - tools: [file-write, shell-exec]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');

/** Four `hldp serve` on one store: A and A2 (workspace a, hide the secret), B (workspace b, hides it too), C (workspace a, hides nothing). */
interface Deployment {
  a: string;
  a2: string;
  b: string;
  c: string;
  /** the workspaces of A (and C) and of B, symlinks resolved, as a request records them */
  wsA: string;
  wsB: string;
  secret: string;
  /** the SQLite file the instances share (SQLite only) */
  database?: string;
  stop(): Promise<void>;
}

function deploy(store: 'sqlite' | 'postgres'): Promise<Deployment> {
  return deployOnOneStore(store, { 'policies/held.hdlp': HELD }, async (on) => {
    const [wsA, wsB] = [join(on.folder, 'ws-a'), join(on.folder, 'ws-b')];
    const secret = join(on.folder, 'etc', 'secrets.env');
    await Promise.all([mkdir(wsA), mkdir(wsB), mkdir(join(on.folder, 'etc'))]);
    await writeFile(secret, 'DB_PASSWORD=hunter2\n');
    const hides = `sandbox:\n  hide: [${secret}]\n`;
    const start = async (name: string, workspace: string, config: string): Promise<ServiceProcess> => (await on.start(name, { config, env: { HLDP_WORKSPACE: workspace } })).service;
    // one after another: the first sets the store up
    const a = await start('a', wsA, hides);
    const [a2, b, c] = await Promise.all([start('a2', wsA, hides), start('b', wsB, hides), start('c', wsA, '')]);
    return { a: a.url, a2: a2.url, b: b.url, c: c.url, wsA: realpathSync(wsA), wsB: realpathSync(wsB), secret: realpathSync(secret), ...(on.sqlite === undefined ? {} : { database: on.sqlite }) };
  });
}

/** bot's write of `path`, filed at `url`; resolves to the request's id (and its token, for a tok-* path). */
async function fileWrite(url: string, path: string): Promise<{ id: string; token?: string }> {
  const call = await api(url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'ran\n' } } });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  return { id: call.body.id as string, ...(call.body.token ? { token: call.body.token as string } : {}) };
}

/** What an instance that runs calls elsewhere answers: 202, the approval recorded with no run, nothing ran, where it runs. */
function expectRecordedElsewhere(answer: { status: number; body: any }, id: string, filedAt: string, by: 'admin' | 'alice'): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  // the filing instance's URL and host are an admin's to read; an approver who is no admin is told "the gateway that filed it" (review Z3, Z3-4)
  expect(answer.body).toMatchObject({ approval: { id, status: 'approved', decided_by: by, run: null, receipt_id: null }, receipt: null, filed_by: by === 'admin' ? { url: filedAt } : null });
  const runsAt = by === 'admin' ? `runs once at the gateway that filed it, at ${filedAt} (` : 'runs once at the gateway that filed it, or at any gateway';
  expect(answer.body.message).toContain(`approved by ${by}; nothing has run yet: '${answer.body.approval.tool}' ${runsAt}`);
  expect(answer.body.message).toContain('or at any gateway with its settings — not here, which runs calls elsewhere (');
  if (by !== 'admin') expect(answer.body.message).not.toContain(filedAt);
}

const files = (folder: string): Promise<string[]> => readdir(folder).then((names) => names.sort());

function acrossInstances(store: 'sqlite' | 'postgres'): void {
  let deployment: Deployment;
  beforeAll(async () => {
    deployment = await deploy(store);
  }, 240_000);
  afterAll(async () => deployment?.stop(), 60_000);

  it('records an approval at an instance of another workspace (202, nothing ran there); an instance of the filing one\'s place runs it there', { timeout: 180_000 }, async () => {
    const { a, b, wsA, wsB } = deployment;
    const { id } = await fileWrite(a, 'approved.txt');
    const there = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'admin', body: { reason: 'looks fine' } });
    expectRecordedElsewhere(there, id, a, 'admin');
    expect(there.body.message).toContain(`its workspace is ${wsA}, this instance's is ${wsB}`);
    expect(there.body.message).not.toContain('sandbox.hide');
    expect(await files(wsB)).not.toContain('approved.txt');

    const settled = await receiptOf(a, id);
    expect(settled).toMatchObject({ approval: { status: 'approved', decided_by: 'admin', decision_reason: 'looks fine' }, receipt: { ok: true, caller: 'bot', approval: { id, decided_by: 'admin' } } });
    // which gateway ran it is an admin's to read, not its caller's (review Z5, Z5-8)
    expect(settled.approval.run.by).toBe('a gateway (an administrator can see which)');
    expect((await api(a, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval.run.by).toMatch(/ pid \d+ \(instance /);
    expect(await readFile(join(wsA, 'approved.txt'), 'utf8')).toBe('ran\n');
    expect(await files(wsB)).not.toContain('approved.txt');
  });

  it('runs each request approved elsewhere once, whichever of two instances of its place claims it (A and A2, both waited on)', { timeout: 180_000 }, async () => {
    const { a, a2, b, wsA } = deployment;
    const ids: string[] = [];
    for (const line of ['one', 'two', 'three']) {
      const filed = await api(a, 'POST', '/v1/call', { who: 'bot', body: { tool: 'shell-exec', params: { cmd: `echo ${line} >> race.txt` } } });
      expect(filed.status, JSON.stringify(filed.body)).toBe(202);
      ids.push(filed.body.id as string);
    }
    // callers wait at both instances of the request's place while it is approved at B: their waits and sweeps all look
    const waits = ids.flatMap((id) => [receiptOf(a, id), receiptOf(a2, id)]);
    const approvals = await Promise.all(ids.map((id) => api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} })));
    approvals.forEach((answer, index) => expectRecordedElsewhere(answer, ids[index]!, a, 'alice'));
    const settled = await Promise.all(waits);
    for (const [index, id] of ids.entries()) {
      const [atA, atA2] = [settled[index * 2], settled[index * 2 + 1]];
      expect(atA.receipt).toMatchObject({ ok: true, approval: { id } });
      expect(atA2.receipt.id).toBe(atA.receipt.id);
    }
    const lines = (await readFile(join(wsA, 'race.txt'), 'utf8')).split('\n').filter(Boolean).sort();
    expect(lines).toEqual(['one', 'three', 'two']);
  });

  it('records it at an instance of the same workspace that hides less from tools, naming sandbox.hide; it runs with the secret hidden', { timeout: 180_000 }, async () => {
    const { a, c, secret } = deployment;
    const filed = await api(a, 'POST', '/v1/call', { who: 'bot', body: { tool: 'shell-exec', params: { cmd: `cat ${secret} 2>/dev/null; echo done` } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    const id = filed.body.id as string;
    const there = await api(c, 'POST', `/v1/approvals/${id}/approve`, { who: 'admin', body: {} });
    expectRecordedElsewhere(there, id, a, 'admin');
    expect(there.body.message).toContain(`its sandbox.hide is ${secret}, this instance's is (none)`);
    expect(there.body.message).not.toContain('workspace is');
    expect(JSON.stringify(there.body)).not.toContain('hunter2');

    const settled = await receiptOf(a, id);
    expect(settled.receipt).toMatchObject({ caller: 'bot' });
    expect(settled.receipt.output).toContain('done');
    expect(settled.receipt.output).not.toContain('hunter2');
  });

  it('refuses a confirmation token presented at another instance, and the token still runs the call at the filing one', { timeout: 120_000 }, async () => {
    const { a, b, wsA, wsB } = deployment;
    const { id, token } = await fileWrite(a, 'tok-confirmed.txt');
    expect(token).toBeDefined();
    const there = await api(b, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
    expect(there.status, JSON.stringify(there.body)).toBe(409);
    expect(there.body).toMatchObject({ code: 'CONFIRMATION_INVALID' });
    // bot, an agent, is told which setting differs, not the operator's paths nor the filing instance (review Z3, Z3-4)
    expect(there.body.error).toContain(`request '${id}' was filed by another instance, which runs calls elsewhere than this instance would: its workspace differs.`);
    expect(there.body.error).not.toContain(wsA);
    expect(there.body.error).not.toContain(a);
    expect(await files(wsB)).not.toContain('tok-confirmed.txt');

    const here = await api(a, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
    expect(here, JSON.stringify(here.body)).toMatchObject({ status: 200, body: { ok: true, caller: 'bot' } });
    expect(await readFile(join(wsA, 'tok-confirmed.txt'), 'utf8')).toBe('ran\n');
  });

  it("says on the request's page in the console of the other instance that it runs at the gateway that filed it, and approving there runs it there", { timeout: 180_000 }, async () => {
    const { a, b, wsA, wsB } = deployment;
    const { id } = await fileWrite(a, 'console.txt');
    // an admin's view: the values and the link (an approver who is no admin: approval-place-withheld.test.ts)
    const cookie = await signInToConsole(b, TOKENS.admin);
    const shown = await (await fetch(`${b}/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(shown).toContain('data-elsewhere="true"');
    expect(shown).toContain('Runs elsewhere: request');
    expect(shown).toContain(`its workspace is ${wsA}`);
    expect(shown).toContain(`href="${a}/console/approvals/${id}"`);
    expect(shown).not.toContain('Approve and run');
    expect(shown).toContain('Approve — it runs at the gateway that filed it');
    expect(shown).toContain('value="deny"');

    const { csrf } = await consoleCsrf(b, cookie);
    const approved = await fetch(`${b}/console/approvals/${id}/decide`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(b).origin, cookie },
      body: new URLSearchParams({ _csrf: csrf, decision: 'approve' }),
    });
    expect(approved.status).toBe(303);
    const location = approved.headers.get('location')!;
    expect(location.startsWith('/console/approvals?notice=')).toBe(true);
    expect(decodeURIComponent(location)).toContain('approved by admin; nothing has run yet');
    expect((await receiptOf(a, id)).receipt).toMatchObject({ ok: true, caller: 'bot' });
    expect(await readFile(join(wsA, 'console.txt'), 'utf8')).toBe('ran\n');
    expect(await files(wsB)).not.toContain('console.txt');
  });

  if (store === 'sqlite') {
    it('runs a request filed before requests recorded their place at any instance, as before', { timeout: 120_000 }, async () => {
      const { a, b, wsB } = deployment;
      const { id } = await fileWrite(a, 'old.txt');
      // as the previous version stored it: its rule without a place or a filer
      const database = new Database(deployment.database!);
      const rule = JSON.parse((database.prepare('SELECT rule FROM approvals WHERE id = ?').get(id) as { rule: string }).rule) as Record<string, unknown>;
      delete rule.place;
      delete rule.filed_by;
      database.prepare('UPDATE approvals SET rule = ? WHERE id = ?').run(JSON.stringify(rule), id);
      database.close();
      const approved = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
      expect(approved, JSON.stringify(approved.body)).toMatchObject({ status: 200, body: { approval: { status: 'approved' }, receipt: { ok: true } } });
      expect(await readFile(join(wsB, 'old.txt'), 'utf8')).toBe('ran\n');
    });
  }

  it('lets any instance deny it: nothing runs', { timeout: 120_000 }, async () => {
    const { a, b } = deployment;
    const { id } = await fileWrite(a, 'denied.txt');
    const denied = await api(b, 'POST', `/v1/approvals/${id}/deny`, { who: 'alice', body: { reason: 'no' } });
    expect(denied, JSON.stringify(denied.body)).toMatchObject({ status: 200, body: { approval: { status: 'denied', decided_by: 'alice' }, receipt: { ok: false, code: 'DENIED' } } });
  });
}

describe('an approval decided at another hldp serve than the one that filed it, on one SQLite store', () => {
  acrossInstances('sqlite');
});

describeWithPostgres('an approval decided at another hldp serve than the one that filed it, on one PostgreSQL database', () => {
  acrossInstances('postgres');
});
