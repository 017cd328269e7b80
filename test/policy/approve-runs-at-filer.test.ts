// Review userZ4, F3 and F15. An instance refused to approve a request filed by a process with another place — which
// kept the call from running with the approver's instance's secrets, but in the README's own deployment (agents on a
// stdio `hldp mcp`, which the MCP SDK starts without LANG/LC_* or shell.inherit_env; people on `hldp serve`'s
// console) nothing an agent filed could be approved: every approval was 409 "Not here", sending the approver to a
// console the stdio process does not have. And a gateway restarted with one setting changed (an MCP server added)
// sent the approver "there", to its own page, for every request it had filed. Now an approver decides anywhere, and
// the call runs where it was filed: at another place the approval is recorded with no run (202, nothing ran), an
// instance of the request's place (the filer: its sweep, or its caller's approval_wait) claims and runs it once, and
// if none does before the request expires it expires saying so. A gateway whose own settings changed since it filed
// the request says that plainly, and links nowhere.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { HLDP_BIN, runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, PRINCIPAL_ENV, PRINCIPALS_YAML, TOKENS } from './support.js';

// a shell tool printing the locale it runs with: the stdio hldp mcp's has none, hldp serve's is C.UTF-8
const SHOW_LANG = [
  'name: show-lang', 'display: show-lang', 'intent: print the locale the gateway runs shell tools with', 'method: run', 'executor: shell',
  'params_schema:', '  text: { type: string, required: true }',
  `shell: { script: 'printf "%s lang=%s\\n" "$HLDP_PARAM_TEXT" "\${LANG-unset}"' }`, 'author: TEST-001', 'created: 2026-12-06', 'why: tests need a shell tool that shows where it ran',
].join('\n');

// every show-lang waits for an approver; a "brief" one expires after 45 s (the filer gone, nobody runs it): time enough
// at load 25 to close the agent's hldp mcp and approve it first
const HELD = [
  'name: held', 'author: TEST-001', 'why: a person looks at show-lang first', 'approval:',
  '  - tools: [show-lang]', '    when: { text: { equals: brief } }', '    decision: approve', '    approvers: { roles: [approver] }', '    expires_in_ms: 45000',
  '  - tools: [show-lang]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');

const PRINCIPALS = PRINCIPALS_YAML.replace('shell-exec]', 'shell-exec, show-lang]');

/** Whether process `pid` still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const text = (result: CallToolResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

describe('an approval decided at hldp serve for a call filed by an agent\'s stdio hldp mcp (review userZ4, F3, F15)', () => {
  let folder = '';
  let repo = '';
  let serve: ServiceProcess;
  let env: NodeJS.ProcessEnv = {};
  let configFile = '';
  const stops: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    const made = await policyRepository({ 'policies/held.hdlp': HELD, 'tools/show-lang/TOOL.hdlp': SHOW_LANG });
    stops.push(() => made.temp.cleanup());
    folder = made.temp.path;
    repo = made.repo;
    configFile = join(folder, 'config.yaml');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(configFile, PRINCIPALS);
    await mkdir(join(folder, 'workspace'));
    env = { HLDP_CACHE_DIR: join(folder, 'cache'), HLDP_DATA_DIR: join(folder, 'data'), HLDP_WORKSPACE: join(folder, 'workspace'), HLDP_POLL_INTERVAL_MS: '600000', HLDP_LOG_LEVEL: 'warn', ...PRINCIPAL_ENV };
    // started from a shell with a locale, as a login shell or a systemd unit with one is
    serve = await spawnService(['serve', '--port', '0', '--repo', repo, '--config', configFile], { ...env, LANG: 'C.UTF-8' }, / at (http:\/\/[\d.:]+)\n/);
    stops.push(() => serve.stop());
  }, 180_000);
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 60_000);

  /** The agent's MCP client starting `hldp mcp` as README's client line does: the SDK's default environment (no LANG) and the gateway's settings. */
  const agent = async (): Promise<{ client: Client; close: () => Promise<void> }> => {
    const client = new Client({ name: 'agent-stdio', version: '0.0.0' });
    const environment: Record<string, string> = { ...getDefaultEnvironment(), ...(env as Record<string, string>), HLDP_TOKEN: TOKENS.bot };
    delete environment.LANG;
    const transport = new StdioClientTransport({ command: process.execPath, args: [HLDP_BIN, 'mcp', '--repo', repo, '--config', configFile], env: environment, stderr: 'ignore' });
    await client.connect(transport);
    const pid = transport.pid!;
    // closed, and its process gone: no sweep of its own left to run what it filed
    const close = async (): Promise<void> => {
      await client.close();
      for (const until = Date.now() + 60_000; Date.now() < until && alive(pid); ) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(alive(pid), `hldp mcp (pid ${pid}) still runs after its client closed`).toBe(false);
    };
    stops.push(() => close());
    return { client, close };
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 150_000 })) as CallToolResult;

  it('records the approval at hldp serve (202, nothing ran there), and the agent\'s approval_wait gets the receipt of the call run in the hldp mcp process', { timeout: 240_000 }, async () => {
    const { client, close } = await agent();
    // closed whatever happens: a process of the request's place left running would run the next test's request
    try {
      const pending = await call(client, 'show-lang', { text: 'approved' });
      expect(pending.structuredContent, text(pending)).toMatchObject({ status: 'approval_required' });
      const id = (pending.structuredContent as { id: string }).id;

      // an admin, who reads which process filed it (an approver who is no admin: approval-place-withheld.test.ts)
      const approved = await api(serve.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'admin', body: { reason: 'fine' } });
      expect(approved.status, JSON.stringify(approved.body)).toBe(202);
      expect(approved.body).toMatchObject({ approval: { id, status: 'approved', decided_by: 'admin', decision_reason: 'fine', run: null, receipt_id: null }, receipt: null, filed_by: { url: null } });
      expect(approved.body.filed_by.by).toMatch(/ pid \d+ \(instance /);
      expect(approved.body.message).toContain("nothing has run yet: 'show-lang' runs once at the process that filed it (");
      expect(approved.body.message).toMatch(/the environment shell tools inherit \([^)]*\bLANG\b[^)]*\) differs/);
      expect(approved.body.message).not.toContain('C.UTF-8');

      const waited = await call(client, 'approval_wait', { id, wait_s: 120 });
      expect(waited.isError, text(waited)).toBeFalsy();
      // run by the hldp mcp process, with its own (empty) locale, not hldp serve's
      expect(text(waited)).toContain('approved lang=unset');
      const shown = await api(serve.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' });
      expect(shown.body.approval).toMatchObject({ status: 'approved', decided_by: 'admin', run: { by: approved.body.filed_by.by } });
      // an approver who is no admin reads that a gateway ran it, not its host and pid (review Z5, Z5-8)
      const toAlice = await api(serve.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' });
      expect(toAlice.body.approval).toMatchObject({ status: 'approved', decided_by: 'admin', run: { by: 'a gateway (an administrator can see which)' } });
      expect(shown.body.receipt).toMatchObject({ ok: true, caller: 'bot', approval: { id, decided_by: 'admin' } });
    } finally {
      await close();
    }
  });

  it('expires a request approved at hldp serve once the hldp mcp that filed it is gone: an EXPIRED receipt saying who approved it and that no gateway with its settings ran it', { timeout: 300_000 }, async () => {
    const { client, close } = await agent();
    const pending = await call(client, 'show-lang', { text: 'brief' });
    const id = (pending.structuredContent as { id: string }).id;
    expect(id, text(pending)).toMatch(/^apr_/);
    await close();
    // a process with the request's settings still in the store's roll of serving instances, which never looks at it
    // (killed a moment ago, its row not yet lapsed): with none it is recorded too, for the agent's next hldp mcp session to run (approval-session-ended.test.ts)
    const place = (await api(serve.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval.rule.place;
    const roll = new Database(join(folder, 'data', 'receipts.db'));
    try {
      roll.prepare('INSERT INTO gateway_instances (instance, place, seen_ms) VALUES (?, ?, ?)').run('gone-host pid 1 (instance killed)', JSON.stringify(place), Date.now() + 600_000);
    } finally {
      roll.close();
    }

    // hldp serve reads the roll every 5 s: an approval answered 409 is tried again (a gateway filer with none would refuse it: approval-filer-gone.test.ts)
    let approved = await api(serve.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    for (const end = Date.now() + 30_000; approved.status === 409 && Date.now() < end; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      approved = await api(serve.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    }
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    // waited on at hldp serve, which may not run it: it expires there when its time comes
    let outcome = await api(serve.url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'alice' });
    for (let attempt = 0; attempt < 3 && outcome.body.receipt === null; attempt += 1) outcome = await api(serve.url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'alice' });
    expect(outcome.body.approval, JSON.stringify(outcome.body)).toMatchObject({ status: 'expired', decided_by: 'alice', run: null });
    expect(outcome.body.receipt).toMatchObject({ ok: false, code: 'EXPIRED', output: '', approval: { id, decided_by: 'alice' } });
    expect(outcome.body.receipt.error).toContain(`request '${id}' was approved by alice at `);
    expect(outcome.body.receipt.error).toContain('but no gateway with its settings ran it before it expired');
    expect(outcome.body.receipt.error).toContain('Nothing ran');
    // the receipt is the caller's to read: the filing process by neither host nor URL (review Z5, Z5-7)
    expect(outcome.body.receipt.error).not.toMatch(/ pid \d+|\(instance |https?:\/\//);
    const again = await api(serve.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'bob', body: {} });
    expect(again.body).toMatchObject({ code: 'APPROVAL_DECIDED' });
    expect(again.body.error).toContain('was approved by alice, but no gateway with its settings');
    // the operator's CLI says the same: approved by alice, then expired with nothing run, not "expired by alice" (review userZ6 F10)
    const shownAtCli = await runCli(['approvals', 'show', id, '--repo', repo, '--config', configFile], { env });
    expect(shownAtCli.stdout).toMatch(/\ndecided   approved by alice at \S+ via api; then expired at \S+ with nothing run: no gateway with its settings ran it\n/);
    expect(shownAtCli.stdout).not.toContain('expired by alice');
    // and the console's page of it: not "expired: no one decided in time"
    const cookie = await signInToConsole(serve.url, TOKENS.alice);
    const page = await (await fetch(`${serve.url}/console/approvals/${encodeURIComponent(id)}`, { headers: { cookie } })).text();
    expect(page).toContain('<span data-decision="expired">approved, then expired: no gateway with its settings ran it, nothing ran</span>');
    expect(page).not.toContain('no one decided in time');
  });
});

describe('a gateway restarted with another setting, at the URL it filed a request at (review userZ4, F15)', () => {
  const stops: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 60_000);

  it("says its own settings changed since the request was filed, links to no page of its own, offers only Deny, and refuses an approval (nothing ran, pending)", { timeout: 240_000 }, async () => {
    const { repo, temp } = await policyRepository({ 'policies/held.hdlp': HELD, 'tools/show-lang/TOOL.hdlp': SHOW_LANG });
    stops.push(() => temp.cleanup());
    const { writeFile } = await import('node:fs/promises');
    const before = join(temp.path, 'before.yaml');
    const after = join(temp.path, 'after.yaml');
    await writeFile(before, PRINCIPALS);
    // the operator adds a variable for shell tools (as one adds an MCP server), and restarts
    await writeFile(after, `${PRINCIPALS}shell:\n  inherit_env: [HLDP_TEST_KEY]\n`);
    await mkdir(join(temp.path, 'workspace'));
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_POLL_INTERVAL_MS: '600000', HLDP_LOG_LEVEL: 'warn', HLDP_TEST_KEY: 'key-5e1d', ...PRINCIPAL_ENV };
    const port = await freePort();
    const start = (config: string): Promise<ServiceProcess> => spawnService(['serve', '--port', String(port), '--repo', repo, '--config', config], env, / at (http:\/\/[\d.:]+)\n/);
    const first = await start(before);
    const filed = await api(first.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'show-lang', params: { text: 'stranded' } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    const id = filed.body.id as string;
    await first.stop();
    const restarted = await start(after);
    stops.push(() => restarted.stop());
    const url = restarted.url;
    expect(url).toBe(first.url);

    const cookie = await signInToConsole(url, TOKENS.alice);
    const page = await (await fetch(`${url}/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(page).toContain('data-elsewhere="stranded"');
    expect(page).toContain('Settings changed: this gateway&#39;s settings changed since request');
    expect(page).toContain('the environment shell tools inherit (HLDP_TEST_KEY) differs');
    expect(page).toContain('deny it, and its caller must call the tool again');
    expect(page).not.toContain(`href="${url}/console/approvals/${id}"`);
    expect(page).not.toContain('decide it there');
    expect(page).not.toContain('Approve and run');
    expect(page).not.toContain('it runs at the gateway that filed it');
    expect(page).toContain('value="deny"');
    expect(page).not.toContain('key-5e1d');

    const refused = await api(url, 'POST', `/v1/approvals/${id}/approve`, { who: 'admin', body: {} });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body).toMatchObject({ code: 'APPROVAL_MISMATCH', approval: { id, status: 'pending', receipt_id: null } });
    expect(refused.body.error).toContain(`this gateway's settings changed since request '${id}' was filed here (${url}, then `);
    expect(refused.body.error).not.toContain(`${url}/console/approvals/${id}`);
    // an approver who is no admin is told the same without the URL and host (review Z3, Z3-4)
    const toAlice = await api(url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(toAlice.status, JSON.stringify(toAlice.body)).toBe(409);
    expect(toAlice.body.error).toContain(`this gateway's settings changed since request '${id}' was filed here: the environment shell tools inherit (HLDP_TEST_KEY) differs (an administrator can see the values`);
    expect(toAlice.body.error).not.toContain(url);

    // a form posted anyway comes back to the request's page, nothing run; Deny closes it
    const { csrf } = await consoleCsrf(url, cookie);
    const denied = await fetch(`${url}/console/approvals/${id}/decide`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin, cookie },
      body: new URLSearchParams({ _csrf: csrf, decision: 'deny', reason: 'settings changed' }),
    });
    expect(denied.status).toBe(303);
    expect((await api(url, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body).toMatchObject({ approval: { status: 'denied' }, receipt: { code: 'DENIED' } });
  });
});
