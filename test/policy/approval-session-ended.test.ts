// Integrator findings U11-16 and U11-3. An agent's stdio `hldp mcp` (one process per agent session) filed a call that
// waits for a person, and its session ended: the process exited. An approver at `hldp serve` was refused (409) and told
// "no gateway serving now runs request …: deny it", though the agent's next `hldp mcp` — started by its MCP client as
// the last one was, so with the same settings — runs an approved request at once (its sweep, or its approval_wait).
// The person could not approve what would in fact run. Now the approval is recorded (202, nothing ran there) and says
// it runs once the caller's next session serves; the console offers it, and the CLI over the gateway's URL records it.
// The agent presenting its confirmation token at hldp serve is told to confirm it in its next session (the token
// stays good), not to "decide it at the instance that filed it", which has exited. The run stays the caller's. And an
// hldp mcp given the gateway's config file, listen.public_url with it, no longer records that URL as its own: hldp serve
// read its requests as filed there, under settings changed since, and offered Deny only.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCsrf, signInToConsole } from '../helpers/console-sign-in.js';
import { freePort } from '../helpers/free-port.js';
import { HLDP_BIN, runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, PRINCIPAL_ENV, PRINCIPALS_YAML, TOKENS } from './support.js';

// a require_confirm shell tool printing the locale it runs with: the stdio hldp mcp's has none, hldp serve's is C.UTF-8
const SHOW_LANG = [
  'name: show-lang', 'display: show-lang', 'intent: print the locale the gateway runs shell tools with', 'method: run', 'executor: shell',
  'params_schema:', '  text: { type: string, required: true }',
  `shell: { script: 'printf "%s lang=%s\\n" "$HLDP_PARAM_TEXT" "\${LANG-unset}"' }`, 'constraints: { require_confirm: true }',
  'author: TEST-001', 'created: 2026-12-07', 'why: tests need a shell tool that shows where it ran',
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

/** Asks `read` every half second until `done` holds of its answer (at most `ms`); the last answer. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 90_000): Promise<T> {
  let value = await read();
  for (const end = Date.now() + ms; !done(value) && Date.now() < end; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    value = await read();
  }
  return value;
}

describe("an approval for a call whose agent's stdio hldp mcp has exited (integrator findings U11-16, U11-3)", () => {
  let folder = '';
  let repo = '';
  let serve: ServiceProcess;
  let env: NodeJS.ProcessEnv = {};
  let configFile = '';
  const stops: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    const made = await policyRepository({ 'tools/show-lang/TOOL.hdlp': SHOW_LANG });
    stops.push(() => made.temp.cleanup());
    folder = made.temp.path;
    repo = made.repo;
    configFile = join(folder, 'config.yaml');
    // the gateway's config file, as DETAILS-mcp.md tells a client line to give hldp mcp: with the URL people reach it at
    const port = await freePort();
    await writeFile(configFile, `${PRINCIPALS}listen:\n  public_url: http://127.0.0.1:${port}\n`);
    await mkdir(join(folder, 'workspace'));
    env = { HLDP_CACHE_DIR: join(folder, 'cache'), HLDP_DATA_DIR: join(folder, 'data'), HLDP_WORKSPACE: join(folder, 'workspace'), HLDP_POLL_INTERVAL_MS: '600000', HLDP_LOG_LEVEL: 'warn', ...PRINCIPAL_ENV };
    serve = await spawnService(['serve', '--port', String(port), '--repo', repo, '--config', configFile], { ...env, LANG: 'C.UTF-8' }, / at (http:\/\/[\d.:]+)\n/);
    stops.push(() => serve.stop());
  }, 180_000);
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 60_000);

  /** One agent session: `hldp mcp` started by the MCP SDK's client as README's client line does (no LANG), as bot. */
  const session = async (): Promise<{ client: Client; close: () => Promise<void> }> => {
    const client = new Client({ name: 'agent-stdio', version: '0.0.0' });
    const environment: Record<string, string> = { ...getDefaultEnvironment(), ...(env as Record<string, string>), HLDP_TOKEN: TOKENS.bot };
    delete environment.LANG;
    const transport = new StdioClientTransport({ command: process.execPath, args: [HLDP_BIN, 'mcp', '--repo', repo, '--config', configFile], env: environment, stderr: 'ignore' });
    await client.connect(transport);
    const pid = transport.pid!;
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await client.close();
      for (const end = Date.now() + 60_000; Date.now() < end && alive(pid); ) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(alive(pid), `hldp mcp (pid ${pid}) still runs after its client closed`).toBe(false);
    };
    stops.push(() => close());
    return { client, close };
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 150_000 })) as CallToolResult;
  const file = async (client: Client, words: string): Promise<{ id: string; token: string }> => {
    const pending = await call(client, 'show-lang', { text: words });
    const held = pending.structuredContent as { id: string; token: string };
    expect(held.id, text(pending)).toMatch(/^apr_/);
    return held;
  };

  it('records the approval over HTTP, the console and hldp approvals --url, saying it runs in the caller\'s next session; that session runs each, as bot', { timeout: 300_000 }, async () => {
    const first = await session();
    const viaHttp = await file(first.client, 'over http');
    const viaConsole = await file(first.client, 'over the console');
    const viaCli = await file(first.client, 'over the cli');
    const confirmed = await file(first.client, 'confirmed later');
    await first.close();

    // hldp serve reads the roll every 5 s: its console's page says what it makes of the exited filer once it has read it
    const cookie = await signInToConsole(serve.url, TOKENS.alice);
    const pageOf = async (id: string): Promise<string> => (await fetch(`${serve.url}/console/approvals/${id}`, { headers: { cookie } })).text();
    const page = (await until(() => pageOf(viaConsole.id), (shown) => shown.includes('data-elsewhere="gone"') || shown.includes('data-elsewhere="ended"'))).replaceAll('&#39;', "'");
    expect(page).toContain('data-elsewhere="ended"');
    expect(page).toContain("Session ended: request '");
    expect(page).toContain("the agent's hldp mcp that filed it has exited (its session ended)");
    expect(page).toContain("it runs once when 'bot' next starts an hldp mcp with the settings it was filed under");
    expect(page).not.toContain('deny it');
    expect(page).toContain("Approve — it runs in the caller's next session</button>");
    expect(page).toContain('value="deny"');

    // over HTTP, as an approver who is no admin: recorded, nothing ran, and said so
    const approved = await api(serve.url, 'POST', `/v1/approvals/${viaHttp.id}/approve`, { who: 'alice', body: { reason: 'fine' } });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    expect(approved.body).toMatchObject({ approval: { id: viaHttp.id, status: 'approved', decided_by: 'alice', run: null, receipt_id: null }, receipt: null });
    expect(approved.body.message).toContain(`approved by alice; it runs when 'bot' next starts an hldp mcp with the settings it was filed under`);
    expect(approved.body.message).toContain('Nothing has run yet');
    expect(approved.body.message).not.toMatch(/deny it| pid \d+|\(instance |https?:\/\//);

    // the console's Approve
    const { csrf } = await consoleCsrf(serve.url, cookie);
    const decided = await fetch(`${serve.url}/console/approvals/${viaConsole.id}/decide`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(serve.url).origin, cookie },
      body: new URLSearchParams({ _csrf: csrf, decision: 'approve', reason: 'fine too' }),
    });
    expect(decided.status).toBeLessThan(400);
    expect((await api(serve.url, 'GET', `/v1/approvals/${viaConsole.id}`, { who: 'alice' })).body.approval).toMatchObject({ status: 'approved', decided_by: 'alice', receipt_id: null });

    // hldp approvals approve over the gateway's URL
    const cli = await runCli(['approvals', 'approve', viaCli.id, '--url', serve.url], { env: { HLDP_TOKEN: TOKENS.alice, HLDP_LOG_LEVEL: 'warn' } });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain("it runs when 'bot' next starts an hldp mcp");

    // the agent presenting its token at hldp serve: told to confirm it in its next session, the token still good
    const atServe = await api(serve.url, 'POST', '/v1/confirm', { who: 'bot', body: { token: confirmed.token } });
    expect(atServe.status, JSON.stringify(atServe.body)).toBe(409);
    expect(atServe.body.error).toContain("the agent's hldp mcp that filed it has exited (its session ended)");
    expect(atServe.body.error).toContain("confirm it with the confirm tool of your next hldp mcp session");
    expect(atServe.body.error).not.toMatch(/decide it at the instance that filed it| pid \d+|\(instance |https?:\/\//);

    // the next session: it runs the approved calls (as bot, in its own place), and confirms the token
    const next = await session();
    try {
      const waited = await call(next.client, 'approval_wait', { id: viaHttp.id, wait_s: 50 });
      expect(waited.isError, text(waited)).toBeFalsy();
      expect(text(waited)).toContain('over http lang=unset');
      for (const [id, words] of [[viaConsole.id, 'over the console'], [viaCli.id, 'over the cli']] as const) {
        const outcome = await until(() => api(serve.url, 'GET', `/v1/approvals/${id}?wait=20`, { who: 'bot' }), (answer) => answer.body.receipt != null, 120_000);
        expect(outcome.body.receipt, JSON.stringify(outcome.body)).toMatchObject({ ok: true, caller: 'bot', output: `${words} lang=unset\n`, approval: { id, decided_by: 'alice' } });
      }
      const ran = await call(next.client, 'confirm', { token: confirmed.token });
      expect(ran.isError, text(ran)).toBeFalsy();
      expect(text(ran)).toContain('confirmed later lang=unset');
    } finally {
      await next.close();
    }
  });
});
