// Review Z7, Z7-1: the receipt of a call approved at another instance named the gateway that ran it — its host name,
// its URL and the registry's path on that host — in `receipt.source`, to the caller waiting for it and to an approver
// who is no admin, in the very answer whose `approval` withheld the same (its `filed_by`, its `run.by`); and so did
// every receipt one who is no admin read (the receipt routes, MCP, the console). A receipt shown to one who is no admin
// now keeps the repository's name (or its remote URL) and says what is withheld; an admin reads it whole, the stored
// receipt and its hash chain unchanged.
// Z7-4: the gateway that runs a request approved elsewhere took `local` as its decider from anywhere: an instance of an
// older build without credentials, sharing the store, records anyone's approval as `local` through its API. It takes
// `local` at its word for a named caller's request only from a one-shot CLI (`hldp approvals approve`), which says so.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { runCli } from '../helpers/run-cli.js';
import { api, mcpClient, policyRepository, startGateway, TOKENS } from './support.js';

const HELD = [
  'name: held', 'author: TEST-001', 'why: a person looks at writes and commands first', 'approval:',
  '  - tools: [file-write, shell-exec]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');
const PRINCIPALS = `principals:\n  bot: { roles: [agent], tools: [file-read, file-write, shell-exec] }\n  bob: { roles: [approver], token_sha256: ${hashToken(TOKENS.bob)} }\n`;
const WITHHELD = "the host and URL of the gateway that made it, and where its repository is on that host (the folder's name is kept): an administrator can see them";
/** the same withheld from the registry itself (/healthz, the console's Registry page): no gateway "made" a registry (review userZ9, U9-10) */
const REGISTRY_WITHHELD = "where the registry's folder is on the gateway's host (its name is kept): an administrator can see it";

interface Deployment {
  /** the instance that files and runs bot's calls, and B, another workspace on the same SQLite store */
  a: string;
  b: string;
  wsA: string;
  repo: string;
  shared: string;
  configB: string;
  envB: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function deploy(): Promise<Deployment> {
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async (): Promise<void> => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  };
  try {
    const { repo, temp } = await policyRepository({ 'policies/held.hdlp': HELD });
    stops.push(() => temp.cleanup());
    const shared = join(temp.path, 'shared-data');
    const start = async (name: string) => {
      const folder = join(temp.path, name);
      await mkdir(folder);
      const started = await startGateway(repo, folder, { principals: PRINCIPALS, logLevel: 'warn', env: { HLDP_DATA_DIR: shared } });
      stops.push(() => started.service.stop());
      return started;
    };
    // one after another: the first sets the store up
    const a = await start('a');
    const b = await start('b');
    return { a: a.url, b: b.url, wsA: join(temp.path, 'a', 'workspace'), repo, shared, configB: b.configFile, envB: b.env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** bot's call filed at `url`: the request's id. */
async function filed(url: string, tool: 'file-write' | 'shell-exec', params: Record<string, unknown>): Promise<string> {
  const call = await api(url, 'POST', '/v1/call', { who: 'bot', body: { tool, params } });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  return call.body.id as string;
}

/** Waits at `url` (as bot, the caller) for request `id`'s receipt. */
async function receiptOf(url: string, id: string): Promise<any> {
  let waited = await api(url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
  for (let attempt = 0; attempt < 2 && waited.body?.receipt === null; attempt += 1) waited = await api(url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
  expect(waited.body?.receipt, JSON.stringify(waited.body)).toBeTruthy();
  return waited.body;
}

describe('receipts read by one who is no admin, and local approvals elsewhere: two hldp serve on one SQLite store (review Z7)', () => {
  let deployment: Deployment;
  // the receipt of a call approved at B and run at A
  let ranElsewhere: string;
  beforeAll(async () => {
    deployment = await deploy();
  }, 300_000);
  afterAll(async () => deployment?.stop(), 60_000);

  it("gives the caller and an approver the receipt of a call approved elsewhere without its runner's host, URL or registry path; an admin reads it whole (Z7-1)", { timeout: 180_000 }, async () => {
    const { a, b, repo } = deployment;
    const id = await filed(a, 'file-write', { path: 'approved-at-b.txt', content: 'ran\n' });
    const approved = await api(b, 'POST', `/v1/approvals/${id}/approve`, { who: 'bob', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);

    const settled = await receiptOf(a, id);
    expect(settled.receipt).toMatchObject({ ok: true, caller: 'bot', approval: { id, decided_by: 'bob' } });
    ranElsewhere = settled.receipt.id as string;
    expect(settled.receipt.source).toEqual({ repository: 'repo', withheld: WITHHELD });
    // the approver who is no admin, at the other instance: the same answer withheld the runner in `approval.run.by`
    const toBob = await api(b, 'GET', `/v1/approvals/${id}`, { who: 'bob' });
    expect(toBob.body.approval.run.by).toBe('a gateway (an administrator can see which)');
    expect(toBob.body.receipt.source).toEqual({ repository: 'repo', withheld: WITHHELD });
    const toAdmin = await api(b, 'GET', `/v1/approvals/${id}`, { who: 'admin' });
    expect(toAdmin.body.receipt.source).toEqual({ host: hostname(), repository: repo, url: a });
  });

  it('reads every receipt to one who is no admin so — the call, the receipt routes — and to an admin whole, its chain intact (Z7-1)', { timeout: 120_000 }, async () => {
    const { a, b, repo, wsA } = deployment;
    await writeFile(join(wsA, 'notes.txt'), 'hello\n');
    const call = await api(a, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-read', params: { path: 'notes.txt' } } });
    expect(call.body).toMatchObject({ ok: true, source: { repository: 'repo', withheld: WITHHELD } });
    expect(call.body.source.host).toBeUndefined();
    for (const id of [call.body.id as string, ranElsewhere]) {
      expect((await api(b, 'GET', `/v1/receipts/${id}`, { who: 'bot' })).body.source).toEqual({ repository: 'repo', withheld: WITHHELD });
      expect((await api(b, 'GET', `/v1/receipts/${id}`, { who: 'bob' })).body.source).toEqual({ repository: 'repo', withheld: WITHHELD });
      expect((await api(b, 'GET', `/v1/receipts/${id}`, { who: 'admin' })).body.source).toEqual({ host: hostname(), repository: repo, url: a });
    }
    const page = await api(b, 'GET', '/v1/receipts?limit=20', { who: 'bot' });
    expect(page.body.receipts.length).toBeGreaterThanOrEqual(2);
    for (const receipt of page.body.receipts) expect(receipt.source).toEqual({ repository: 'repo', withheld: WITHHELD });
    const whole = await api(b, 'GET', '/v1/receipts?limit=20', { who: 'admin' });
    for (const receipt of whole.body.receipts) expect(receipt.source).toMatchObject({ host: hostname(), repository: repo });
    // the stored receipts are unchanged: the chain still verifies
    expect((await api(a, 'GET', '/v1/receipts/verify', { who: 'admin' })).body).toMatchObject({ ok: true });
  });

  it("gives an MCP client's principal who is no admin the receipt without the host, URL or path; an admin's whole (Z7-1)", { timeout: 120_000 }, async () => {
    const { a, repo } = deployment;
    const bot = await mcpClient(a, 'bot');
    try {
      const result = await bot.callTool({ name: 'file-read', arguments: { path: 'notes.txt' } });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect((result.structuredContent as { source: unknown }).source).toEqual({ repository: 'repo', withheld: WITHHELD });
    } finally {
      await bot.close();
    }
    const admin = await mcpClient(a, 'admin');
    try {
      const result = await admin.callTool({ name: 'file-read', arguments: { path: 'notes.txt' } });
      expect((result.structuredContent as { source: unknown }).source).toEqual({ host: hostname(), repository: repo, url: a });
    } finally {
      await admin.close();
    }
  });

  it("shows the console's approver who is no admin the receipt's gateway as withheld, and an admin which it is (Z7-1)", { timeout: 120_000 }, async () => {
    const { a, b, repo } = deployment;
    const facts = (page: string) => ({ gateway: /<dt>Gateway<\/dt><dd>([^<]*)<\/dd>/.exec(page)?.[1], repository: /<dt>Repository<\/dt><dd>([^<]*)<\/dd>/.exec(page)?.[1] });
    const asBob = await (await fetch(`${b}/console/receipts/${ranElsewhere}`, { headers: { cookie: await signInToConsole(b, TOKENS.bob) } })).text();
    expect(facts(asBob)).toEqual({ gateway: WITHHELD.replaceAll("'", '&#39;'), repository: 'repo' });
    const asAdmin = await (await fetch(`${b}/console/receipts/${ranElsewhere}`, { headers: { cookie: await signInToConsole(b, TOKENS.admin) } })).text();
    expect(facts(asAdmin)).toEqual({ gateway: `${a} on ${hostname()}`, repository: repo });
  });

  // Review Z9, Z9-5: the registry's path withheld from receipts was read by every principal from /healthz's details
  // and the console's Registry page; one rule now: they read it as a receipt's `source` is read (`sourceSeen`), and
  // both say what is left out in the registry's own words, not a receipt's (review userZ9, U9-10)
  it("gives one who is no admin the registry's path as a receipt's source, by its folder's name, on /healthz and the console's Registry page, each saying what is withheld of the registry; an admin whole (Z9-5)", { timeout: 120_000 }, async () => {
    const { a, repo } = deployment;
    const health = async (token: string) => (await (await fetch(`${a}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()) as { source: string; source_withheld?: string };
    expect(await health(TOKENS.bot)).toMatchObject({ source: 'repo', source_withheld: REGISTRY_WITHHELD });
    expect(await health(TOKENS.bob)).toMatchObject({ source: 'repo', source_withheld: REGISTRY_WITHHELD });
    const asAdmin = await health(TOKENS.admin);
    expect(asAdmin.source).toBe(repo);
    expect(asAdmin.source_withheld).toBeUndefined();
    const registry = async (token: string) => /<dt>Source<\/dt><dd><code>([^<]*)<\/code>/.exec(await (await fetch(`${a}/console/registry`, { headers: { cookie: await signInToConsole(a, token) } })).text())?.[1];
    for (const who of [TOKENS.bot, TOKENS.bob]) {
      const page = await (await fetch(`${a}/console/registry`, { headers: { cookie: await signInToConsole(a, who) } })).text();
      expect(/<dt>Source<\/dt><dd><code>([^<]*)<\/code>/.exec(page)?.[1]).toBe('repo');
      expect(page).toContain(REGISTRY_WITHHELD.replaceAll("'", '&#39;'));
      expect(page).not.toContain(repo);
    }
    expect(await registry(TOKENS.admin)).toBe(repo);
  });

  it("does not run a named caller's request approved elsewhere as 'local' through an instance's API (an older build without credentials on the store): CANCELLED, nothing ran (Z7-4)", { timeout: 180_000 }, async () => {
    const { a, wsA, shared } = deployment;
    const id = await filed(a, 'shell-exec', { cmd: 'echo ran > local-approved.txt' });
    // what an instance of an older build without credentials records when anyone who reaches it approves it
    const database = new Database(join(shared, 'receipts.db'));
    try {
      const changed = database.prepare("UPDATE approvals SET status = 'approved', decided_ms = ?, decided_by = 'local', decision_reason = NULL, decided_via = 'api' WHERE id = ? AND status = 'pending'").run(Date.now(), id).changes;
      expect(changed).toBe(1);
    } finally {
      database.close();
    }
    const settled = await receiptOf(a, id);
    expect(settled.receipt).toMatchObject({ ok: false, code: 'CANCELLED', output: '', caller: 'bot', approval: { id, decided_by: 'local' } });
    expect(settled.receipt.error).toContain("approved by 'local', who may not decide it at the gateway that runs it: it was approved through an instance's API, not with hldp approvals approve");
    expect(await readFile(join(wsA, 'local-approved.txt'), 'utf8').catch(() => undefined)).toBeUndefined();
  });

  it("runs a named caller's request that hldp approvals approve recorded as 'local' for the gateway that filed it (Z7-4)", { timeout: 180_000 }, async () => {
    const { a, wsA, repo, configB, envB } = deployment;
    const id = await filed(a, 'shell-exec', { cmd: 'echo ran > cli-approved.txt' });
    // the operator's shell at B's workspace: no HLDP_TOKEN, so the CLI decides as 'local'
    const approve = await runCli(['approvals', 'approve', id, '--config', configB, '--repo', repo], { env: { ...envB, HLDP_TOKEN: undefined } });
    expect(approve.code, approve.stdout + approve.stderr).toBe(0);
    expect(approve.stderr).toContain("nothing has run yet: 'shell-exec' runs once at the gateway that filed it");
    const settled = await receiptOf(a, id);
    expect(settled.receipt).toMatchObject({ ok: true, caller: 'bot', approval: { id, decided_by: 'local', via: 'cli' } });
    expect(await readFile(join(wsA, 'cli-approved.txt'), 'utf8')).toBe('ran\n');
  });
});
