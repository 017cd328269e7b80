// Review Z3, Z3-4 and Z3-5. An instance that runs calls elsewhere than the one that filed a request records an approval
// and leaves the run to the filing instance's place (202; review userZ4, F3), naming each differing setting with both
// values, and the filing instance by its URL and host; a confirmation token it refuses (409) alike;
// the request itself (`GET /v1/approvals/:id`) held them as `rule.place` and `rule.filed_by`. An approver who is no
// admin, or the agent reading its own request, learnt the operator's workspace paths, hidden paths and hosts from
// them. They are now an admin's to read, on every surface: the refusal, the request, the console's *Not here*, a
// confirmation token's refusal and what it leaves in the store (its event and rejection record). And the filing
// instance is named by the URL its operator gave it (`listen.public_url`), not a guessed `http://<host name>`; the
// console links only an http(s) URL, whatever a store row holds.
import { hostname } from 'node:os';
import { realpathSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { runCli } from '../helpers/run-cli.js';
import { api, policyRepository, startGateway, TOKENS } from './support.js';

// a write to tok-* is the caller's to confirm (a token); any other write waits for an approver
const HELD = [
  'name: held', 'author: TEST-001', 'why: a person looks at writes first', 'approval:',
  '  - tools: [file-write]', '    when: { path: { glob: "tok-*" } }', '    decision: approve', '    self_approval: true',
  '  - tools: [file-write]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');

const PUBLIC = 'https://hldp-a.example/gateway';

const home = useCliHome();

describe('where instances run calls, as a request filed at another instance shows it', () => {
  let a: string;
  let b: string;
  let wsA: string;
  let wsB: string;
  let secret: string;
  let database: string;
  const stops: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    const { repo, temp } = await policyRepository({ 'policies/held.hdlp': HELD });
    stops.push(() => temp.cleanup());
    const shared = join(temp.path, 'shared-data');
    database = join(shared, 'receipts.db');
    const folders = { a: join(temp.path, 'ws-a'), b: join(temp.path, 'ws-b'), etc: join(temp.path, 'etc') };
    await Promise.all(Object.values(folders).map((folder) => mkdir(folder)));
    const secretFile = join(folders.etc, 'secrets.env');
    await writeFile(secretFile, 'DB_PASSWORD=hunter2\n');
    const start = async (name: string, workspace: string, config: string, env: NodeJS.ProcessEnv = {}): Promise<string> => {
      const folder = join(temp.path, name);
      await mkdir(folder);
      const started = await startGateway(repo, folder, { config, logLevel: 'warn', env: { HLDP_DATA_DIR: shared, HLDP_WORKSPACE: workspace, ...env } });
      stops.push(() => started.service.stop());
      return started.url;
    };
    // one after another: the first sets the store up. A is named by the URL its operator gave it (a trailing slash is dropped)
    a = await start('a', folders.a, `sandbox:\n  hide: [${secretFile}]\nlisten:\n  public_url: ${PUBLIC}/\n`);
    b = await start('b', folders.b, '');
    [wsA, wsB, secret] = [realpathSync(folders.a), realpathSync(folders.b), realpathSync(secretFile)];
  }, 240_000);
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 60_000);

  /** bot's write of `path` filed at A: the request's id, and its token for a tok-* path. */
  const fileWrite = async (path: string): Promise<{ id: string; token?: string }> => {
    const call = await api(a, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'ran\n' } } });
    expect(call.status, JSON.stringify(call.body)).toBe(202);
    return { id: call.body.id as string, ...(call.body.token ? { token: call.body.token as string } : {}) };
  };
  /** What tells the operator's layout: the workspaces, the hidden path, A's URL and host. */
  const layout = (): string[] => [wsA, wsB, secret, PUBLIC, 'hldp-a.example', a, b, `${hostname()} pid`];
  const expectNoLayout = (text: string): void => {
    for (const value of layout()) expect(text, `shows ${value}`).not.toContain(value);
  };

  it('tells an approver who is no admin, approving at another instance, which settings differ, not their values nor the filing instance; an admin both', { timeout: 120_000 }, async () => {
    // the approval is recorded (202) and the call runs at the filing instance's place (review userZ4, F3); what it says differs by reader
    const { id } = await fileWrite('approved.txt');
    const there = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: { reason: 'looks fine' } });
    expect(there.status, JSON.stringify(there.body)).toBe(202);
    expect(there.body).toMatchObject({ approval: { id, status: 'approved', run: null }, receipt: null, filed_by: null });
    expect(there.body.message).toContain("runs once at the gateway that filed it, or at any gateway with its settings");
    expect(there.body.message).toContain('(its workspace, sandbox.hide differ (an administrator can see the values, and which instance filed it))');
    expectNoLayout(JSON.stringify(there.body));
    expect(there.body.approval.rule.place).toBeUndefined();
    expect(there.body.approval.rule.filed_by).toBeUndefined();
    expect(there.body.approval.rule.place_withheld).toContain('an administrator can see them');
    expect(await readdir(wsB)).not.toContain('approved.txt');

    // an admin is told both values and where it runs: at the URL A's operator gave it
    const second = await fileWrite('approved-by-admin.txt');
    const admin = await api(b, 'POST', `/v1/approvals/${second.id}/approve`, { who: 'admin', body: {} });
    expect(admin.status, JSON.stringify(admin.body)).toBe(202);
    expect(admin.body.message).toContain(`its workspace is ${wsA}, this instance's is ${wsB}`);
    expect(admin.body.message).toContain(`its sandbox.hide is ${secret}, this instance's is (none)`);
    expect(admin.body.message).toContain(`runs once at the gateway that filed it, at ${PUBLIC} (`);
    expect(admin.body).toMatchObject({ filed_by: { url: PUBLIC } });
    expect(admin.body.approval.rule).toMatchObject({ place: { workspace: wsA, hide: [secret] }, filed_by: { url: PUBLIC } });
  });

  it('shows the request without its place and filer to its caller and to an approver who is no admin, whole to an admin', { timeout: 120_000 }, async () => {
    const { id } = await fileWrite('read.txt');
    for (const who of ['bot', 'alice'] as const) {
      for (const url of [a, b]) {
        const one = await api(url, 'GET', `/v1/approvals/${id}`, { who });
        expect(one.status, JSON.stringify(one.body)).toBe(200);
        expect(one.body.approval).toMatchObject({ id, status: 'pending', rule: { place_withheld: expect.stringContaining('an administrator can see them') } });
        expect(one.body.approval.rule).not.toHaveProperty('place');
        expect(one.body.approval.rule).not.toHaveProperty('filed_by');
        expectNoLayout(JSON.stringify(one.body));
        const listed = await api(url, 'GET', '/v1/approvals?status=pending', { who });
        expect(listed.body.approvals.map((approval: { id: string }) => approval.id)).toContain(id);
        expectNoLayout(JSON.stringify(listed.body));
      }
    }
    const admin = await api(b, 'GET', `/v1/approvals/${id}`, { who: 'admin' });
    expect(admin.body.approval.rule).toMatchObject({ place: { workspace: wsA, hide: [secret] }, filed_by: { url: PUBLIC, by: expect.stringContaining(`${hostname()} pid`) } });
    expect(admin.body.approval.rule).not.toHaveProperty('place_withheld');
  });

  it("tells the agent presenting its token at another instance which settings differ, and leaves no value in its event", { timeout: 120_000 }, async () => {
    const { id, token } = await fileWrite('tok-confirmed.txt');
    const there = await api(b, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
    expect(there.status, JSON.stringify(there.body)).toBe(409);
    expect(there.body).toMatchObject({ code: 'CONFIRMATION_INVALID' });
    expect(there.body.error).toContain(`request '${id}' was filed by another instance, which runs calls elsewhere than this instance would: its workspace, sandbox.hide differ`);
    expectNoLayout(JSON.stringify(there.body));
    // its call.rejected event (the caller's to read, as an approver's and an admin's) is written after the answer
    const rejected = async (): Promise<string[]> => {
      const store = new Database(database, { readonly: true });
      try {
        return (store.prepare("SELECT data FROM events WHERE type = 'call.rejected'").all() as Array<{ data: string }>).map((row) => row.data);
      } finally {
        store.close();
      }
    };
    const until = Date.now() + 30_000;
    let events = await rejected();
    while (!events.some((data) => data.includes(id)) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      events = await rejected();
    }
    expect(events.find((data) => data.includes(id))).toContain('CONFIRMATION_INVALID');
    for (const data of events) expectNoLayout(data);
    // the token is still good where the request was filed
    const here = await api(a, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
    expect(here, JSON.stringify(here.body)).toMatchObject({ status: 200, body: { ok: true, caller: 'bot' } });
  });

  it("shows an approver who is no admin Not here with the settings' names and no link; an admin the values and a link to the URL A's operator gave", { timeout: 120_000 }, async () => {
    const { id } = await fileWrite('console.txt');
    const alice = await signInToConsole(b, TOKENS.alice);
    const page = await (await fetch(`${b}/console/approvals/${id}`, { headers: { cookie: alice } })).text();
    expect(page).toContain('data-elsewhere="true"');
    expect(page).toContain('its workspace, sandbox.hide differ');
    expect(page).toContain('an administrator can see the values');
    expect(page).not.toContain('Open it at the gateway that filed it');
    expectNoLayout(page);
    const queue = await (await fetch(`${b}/console/approvals`, { headers: { cookie: alice } })).text();
    expect(queue).toContain(id);
    expectNoLayout(queue);

    const admin = await signInToConsole(b, TOKENS.admin);
    const shown = await (await fetch(`${b}/console/approvals/${id}`, { headers: { cookie: admin } })).text();
    expect(shown).toContain(`its workspace is ${wsA}`);
    expect(shown).toContain(`href="${PUBLIC}/console/approvals/${id}"`);
  });

  it('links no filing instance whose stored URL is not http or https (a hostile store row)', { timeout: 120_000 }, async () => {
    const { id } = await fileWrite('hostile.txt');
    const store = new Database(database);
    try {
      const rule = JSON.parse((store.prepare('SELECT rule FROM approvals WHERE id = ?').get(id) as { rule: string }).rule) as { filed_by: { url: string } };
      rule.filed_by.url = 'javascript:alert(document.cookie)//http://x';
      store.prepare('UPDATE approvals SET rule = ? WHERE id = ?').run(JSON.stringify(rule), id);
    } finally {
      store.close();
    }
    const admin = await signInToConsole(b, TOKENS.admin);
    const page = await (await fetch(`${b}/console/approvals/${id}`, { headers: { cookie: admin } })).text();
    expect(page).toContain('data-elsewhere="true"');
    expect(page).not.toContain('Open it at the gateway that filed it');
    expect(page).not.toMatch(/href="javascript:/i);
  });
});

describe('listen.public_url', () => {
  it.each([
    ['javascript:alert(1)', "the scheme 'javascript:'"],
    ['https://user:pw@hldp.example', 'must hold no user, password, query or fragment'],
    ['hldp-a.example', 'must be an http:// or https:// URL'],
  ])('refuses HLDP_PUBLIC_URL=%s at start, naming it (exit 2)', { timeout: 60_000 }, async (value, reason) => {
    const run = await runCli(['serve', '--port', '0'], { env: { ...home.env, HLDP_PUBLIC_URL: value } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('hldp serve: HLDP_PUBLIC_URL: ');
    expect(run.stderr).toContain(reason);
  });
});
