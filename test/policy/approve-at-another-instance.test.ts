// Serving instances sharing a store ran each other's approved requests whatever their workspaces: an approver at
// instance B approving a request filed at A ran the agent's call in B's workspace, or with nothing of A's
// `sandbox.hide` hidden from it — what `hldp approvals approve` already refused (review userY, Y8; review Z). An
// instance whose own place differs from the request's now decides nothing: 409 APPROVAL_MISMATCH naming what differs
// and the filing instance's URL, the request left pending; the console says so on the request's page instead of
// running it; approving at the filing instance runs it there.
import { realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, startGateway, TOKENS } from './support.js';

// a write to tok-* is the caller's to confirm (a token); any other write, and every command, waits for an approver
const HELD = [
  'name: held', 'author: TEST-001', 'why: a person looks at writes and commands first', 'approval:',
  '  - tools: [file-write]', '    when: { path: { glob: "tok-*" } }', '    decision: approve', '    self_approval: true',
  '  - tools: [file-write, shell-exec]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');

/** Three `hldp serve` on one store: A (workspace a, hides the secret), B (workspace b, hides it too), C (workspace a, hides nothing). */
interface Deployment {
  a: string;
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

async function deploy(store: 'sqlite' | 'postgres'): Promise<Deployment> {
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async (): Promise<void> => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  };
  try {
    const { repo, temp } = await policyRepository({ 'policies/held.hdlp': HELD });
    stops.push(() => temp.cleanup());
    const shared = join(temp.path, 'shared-data');
    let env: NodeJS.ProcessEnv = { HLDP_DATA_DIR: shared };
    if (store === 'postgres') {
      const database = await createTestDatabase();
      stops.push(() => database.drop());
      env = { HLDP_STORE_URL: database.url };
    }
    const [wsA, wsB] = [join(temp.path, 'ws-a'), join(temp.path, 'ws-b')];
    const secret = join(temp.path, 'etc', 'secrets.env');
    await Promise.all([mkdir(wsA), mkdir(wsB), mkdir(join(temp.path, 'etc'))]);
    await writeFile(secret, 'DB_PASSWORD=hunter2\n');
    const hides = `sandbox:\n  hide: [${secret}]\n`;
    const start = async (name: string, workspace: string, config: string): Promise<ServiceProcess> => {
      const folder = join(temp.path, name);
      await mkdir(folder);
      const started = await startGateway(repo, folder, { config, logLevel: 'warn', env: { ...env, HLDP_WORKSPACE: workspace } });
      stops.push(() => started.service.stop());
      return started.service;
    };
    // one after another: the first sets the store up
    const a = await start('a', wsA, hides);
    const [b, c] = await Promise.all([start('b', wsB, hides), start('c', wsA, '')]);
    return { a: a.url, b: b.url, c: c.url, wsA: realpathSync(wsA), wsB: realpathSync(wsB), secret: realpathSync(secret), ...(store === 'sqlite' ? { database: join(shared, 'receipts.db') } : {}), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** bot's write of `path`, filed at `url`; resolves to the request's id (and its token, for a tok-* path). */
async function fileWrite(url: string, path: string): Promise<{ id: string; token?: string }> {
  const call = await api(url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'ran\n' } } });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  return { id: call.body.id as string, ...(call.body.token ? { token: call.body.token as string } : {}) };
}

/** What an instance that runs calls elsewhere answers: 409, nothing ran, the request pending, where to decide it. */
function expectRefusedElsewhere(answer: { status: number; body: any }, id: string, filedAt: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(409);
  expect(answer.body.error).toContain(`request '${id}' was filed by the gateway at ${filedAt} (`);
  expect(answer.body.error).toContain('Nothing ran and nothing was decided; it stays pending');
  expect(answer.body.error).toContain(`decide it there (${filedAt}: its console, ${filedAt}/console/approvals/${id}, POST /v1/approvals/${id}/approve`);
}

const files = (folder: string): Promise<string[]> => readdir(folder).then((names) => names.sort());

function acrossInstances(store: 'sqlite' | 'postgres'): void {
  let deployment: Deployment;
  beforeAll(async () => {
    deployment = await deploy(store);
  }, 240_000);
  afterAll(async () => deployment?.stop(), 60_000);

  it('refuses an approval at an instance of another workspace (409, pending, nothing ran there); the filing instance runs it', { timeout: 120_000 }, async () => {
    const { a, b, wsA, wsB } = deployment;
    const { id } = await fileWrite(a, 'approved.txt');
    // an admin is told the values (anyone else their names only: approval-place-withheld.test.ts)
    const there = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'admin', body: { reason: 'looks fine' } });
    expectRefusedElsewhere(there, id, a);
    expect(there.body).toMatchObject({ code: 'APPROVAL_MISMATCH', approval: { id, status: 'pending' } });
    expect(there.body.error).toContain(`its workspace is ${wsA}, this instance's is ${wsB}`);
    expect(there.body.error).not.toContain('sandbox.hide');
    expect(await files(wsB)).not.toContain('approved.txt');
    expect((await api(a, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body).toMatchObject({ approval: { status: 'pending', decided_by: null, receipt_id: null }, receipt: null });

    const here = await api(a, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { reason: 'looks fine' } });
    expect(here, JSON.stringify(here.body)).toMatchObject({ status: 200, body: { approval: { status: 'approved', decided_by: 'alice' }, receipt: { ok: true, caller: 'bot' } } });
    expect(await readFile(join(wsA, 'approved.txt'), 'utf8')).toBe('ran\n');
    expect(await files(wsB)).not.toContain('approved.txt');
  });

  it('refuses it at an instance of the same workspace that hides less from tools, naming sandbox.hide', { timeout: 120_000 }, async () => {
    const { a, c, secret } = deployment;
    const filed = await api(a, 'POST', '/v1/call', { who: 'bot', body: { tool: 'shell-exec', params: { cmd: `cat ${secret} 2>/dev/null; echo done` } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    const id = filed.body.id as string;
    const there = await api(c, 'POST', `/v1/approvals/${id}/approve`, { who: 'admin', body: {} });
    expectRefusedElsewhere(there, id, a);
    expect(there.body.error).toContain(`its sandbox.hide is ${secret}, this instance's is (none)`);
    expect(there.body.error).toContain('or at an instance with the same sandbox.hide');
    expect(there.body.error).not.toContain('workspace is');
    expect(JSON.stringify(there.body)).not.toContain('hunter2');
    expect((await api(a, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body.approval).toMatchObject({ status: 'pending', receipt_id: null });

    const here = await api(a, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(here, JSON.stringify(here.body)).toMatchObject({ status: 200, body: { approval: { status: 'approved' }, receipt: { caller: 'bot' } } });
    expect(here.body.receipt.output).toContain('done');
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

  it("shows why on the request's page in the console of the other instance, offers Deny but not Approve and run, and a forced approve comes back there", { timeout: 120_000 }, async () => {
    const { a, b, wsA, wsB } = deployment;
    const { id } = await fileWrite(a, 'console.txt');
    // an admin's view: the values and the link (an approver who is no admin: approval-place-withheld.test.ts)
    const cookie = await signInToConsole(b, TOKENS.admin);
    const shown = await (await fetch(`${b}/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(shown).toContain('data-elsewhere="true"');
    expect(shown).toContain(`its workspace is ${wsA}`);
    expect(shown).toContain(`href="${a}/console/approvals/${id}"`);
    expect(shown).not.toContain('Approve and run');
    expect(shown).toContain('value="deny"');

    // a form posted anyway (a page kept open, a script): nothing runs, and the person is back on the request's page
    const { csrf } = await consoleCsrf(b, cookie);
    const forced = await fetch(`${b}/console/approvals/${id}/decide`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(b).origin, cookie },
      body: new URLSearchParams({ _csrf: csrf, decision: 'approve' }),
    });
    expect(forced.status).toBe(303);
    const location = forced.headers.get('location')!;
    expect(location.startsWith(`/console/approvals/${id}?notice=`)).toBe(true);
    const after = await (await fetch(`${b}${location}`, { headers: { cookie } })).text();
    expect(after).toContain('Nothing ran, and nothing was decided');
    expect(after).toContain('data-elsewhere="true"');
    expect(await files(wsB)).not.toContain('console.txt');

    // at the filing instance's console it is approved and run as ever
    const atA = await signInToConsole(a, TOKENS.alice);
    expect(await (await fetch(`${a}/console/approvals/${id}`, { headers: { cookie: atA } })).text()).toContain('Approve and run');
    expect((await api(a, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} })).status).toBe(200);
    expect(await readFile(join(wsA, 'console.txt'), 'utf8')).toBe('ran\n');
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
