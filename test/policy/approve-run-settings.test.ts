// place17 refused an approval at an instance of another workspace or sandbox, but not at one of the same workspace
// that runs calls with other secrets: an agent filed a request at A and had it approved (or confirmed its own token)
// at B, which shares the store and the workspace and ran the agent's command with B's inherited environment
// (`shell.inherit_env`) or against B's API targets with B's credentials (review Z3, finding 1). A request now records
// a digest of each of those groups. An instance whose own differ records an approval with no run (202; review userZ4,
// F3: it refused it, 409), naming the group, never its values, and an instance run as the filing one runs the call
// with the filing one's; a confirmation token presented there is still refused (CONFIRMATION_INVALID).
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { api, policyRepository, PRINCIPALS_YAML, startGateway, TOKENS } from './support.js';

const HELD = [
  'name: held', 'author: TEST-001', 'why: a person looks at commands first; a write to tok-* is the caller\'s to confirm', 'approval:',
  '  - tools: [file-write]', '    when: { path: { glob: "tok-*" } }', '    decision: approve', '    self_approval: true',
  '  - tools: [show-key]', '    decision: approve', '    approvers: { roles: [approver] }',
].join('\n');

// a shell tool (run by the gateway itself, not a gatekeeper) printing the variable shell.inherit_env passes on
const SHOW_KEY = [
  'name: show-key', 'display: show-key', 'intent: print the inherited test key', 'method: run', 'executor: shell',
  'params_schema:', '  text: { type: string, required: true }',
  `shell: { script: 'printf "%s key=%s\\n" "$HLDP_PARAM_TEXT" "$HLDP_TEST_KEY"' }`, 'author: TEST-001', 'created: 2026-12-01', 'why: tests need a shell tool that shows what it inherits',
].join('\n');

const KEY_A = 'key-of-a-5f0c1e';
const KEY_B = 'key-of-b-93d2aa';
const BILLING_TOKEN = 'billing-token-8c4b21';

/** `shell.inherit_env` passing HLDP_TEST_KEY on, and the apis target 'billing' at `billing`. */
const settings = (billing: string): string => `shell:\n  inherit_env: [HLDP_TEST_KEY]\napis:\n  billing: { url: "${billing}", token: ${BILLING_TOKEN} }\n`;

describe('approving at an instance of the same workspace that runs calls with other settings (review Z3, 1)', () => {
  const urls: Record<'a' | 'b' | 'c' | 'd', string> = { a: '', b: '', c: '', d: '' };
  let workspace = '';
  let registry = '';
  // A's config file and environment, as an approver's `hldp approvals approve` would run with them
  let filer: { configFile: string; env: NodeJS.ProcessEnv } = { configFile: '', env: {} };
  const stops: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    const { repo, temp } = await policyRepository({ 'policies/held.hdlp': HELD, 'tools/show-key/TOOL.hdlp': SHOW_KEY });
    stops.push(() => temp.cleanup());
    registry = repo;
    workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    const shared = { HLDP_DATA_DIR: join(temp.path, 'shared-data'), HLDP_WORKSPACE: workspace };
    const start = async (name: keyof typeof urls, key: string, billing: string): Promise<void> => {
      const folder = join(temp.path, name);
      await mkdir(folder);
      const started = await startGateway(repo, folder, { config: settings(billing), principals: PRINCIPALS_YAML.replace('shell-exec]', 'shell-exec, show-key]'), logLevel: 'warn', env: { ...shared, HLDP_TEST_KEY: key } });
      stops.push(() => started.service.stop());
      urls[name] = started.url;
      if (name === 'a') filer = { configFile: started.configFile, env: started.env };
    };
    // A files; B differs from it in the inherited variable's value, C in the apis URL, D in nothing. The first sets the store up
    await start('a', KEY_A, 'http://127.0.0.1:9/billing');
    await Promise.all([start('b', KEY_B, 'http://127.0.0.1:9/billing'), start('c', KEY_A, 'http://127.0.0.1:9/billing-test'), start('d', KEY_A, 'http://127.0.0.1:9/billing')]);
  }, 300_000);
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 60_000);

  const fileCommand = async (): Promise<string> => {
    const filed = await api(urls.a, 'POST', '/v1/call', { who: 'bot', body: { tool: 'show-key', params: { text: 'approved' } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    return filed.body.id as string;
  };

  const expectPending = async (id: string): Promise<void> => {
    expect((await api(urls.a, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body.approval).toMatchObject({ status: 'pending', decided_by: null, receipt_id: null });
  };

  /** The receipt of request `id`, waited for at A (as bot, its caller). */
  const receiptAtA = async (id: string): Promise<any> => {
    let waited = await api(urls.a, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
    for (let attempt = 0; attempt < 2 && waited.body?.receipt === null; attempt += 1) waited = await api(urls.a, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
    expect(waited.body?.receipt, JSON.stringify(waited.body)).toBeTruthy();
    return waited.body.receipt;
  };

  it('records it at an instance whose inherited environment differs, naming the variable and no value, and it runs with the filing instance\'s', { timeout: 180_000 }, async () => {
    const id = await fileCommand();
    const there = await api(urls.b, 'POST', `/v1/approvals/${id}/approve`, { who: 'admin', body: {} });
    expect(there.status, JSON.stringify(there.body)).toBe(202);
    expect(there.body).toMatchObject({ approval: { id, status: 'approved', run: null }, receipt: null, filed_by: { url: urls.a } });
    expect(there.body.message).toContain('the environment shell tools inherit (HLDP_TEST_KEY) differs');
    expect(there.body.message).not.toContain('workspace is');
    expect(there.body.message).not.toContain('apis target');
    expect(JSON.stringify(there.body)).not.toContain(KEY_A);
    expect(JSON.stringify(there.body)).not.toContain(KEY_B);
    const ran = await receiptAtA(id);
    expect(ran).toMatchObject({ ok: true, caller: 'bot' });
    expect(ran.output).toContain(`approved key=${KEY_A}`);

    // hldp approvals approve with A's config file and workspace, but another value of the variable: recorded alike, run at A's place
    const second = await fileCommand();
    const cli = await runCli(['approvals', 'approve', second, '--repo', registry, '--config', filer.configFile], { env: { ...filer.env, HLDP_TOKEN: TOKENS.alice, HLDP_TEST_KEY: KEY_B } });
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    expect(cli.stderr).toContain(`${second} approved by alice`);
    expect(cli.stderr).toContain('nothing has run yet');
    expect(cli.stderr).toContain('the environment shell tools inherit (HLDP_TEST_KEY) differs');
    expect(cli.stderr + cli.stdout).not.toContain(KEY_A);
    expect((await receiptAtA(second)).output).toContain(`approved key=${KEY_A}`);
  });

  it('records it at an instance whose apis target differs, naming the target; the request holds no secret in clear', { timeout: 180_000 }, async () => {
    const id = await fileCommand();
    // the digests are an admin's to read; the caller reads its request without them (review Z3, Z3-4)
    expect((await api(urls.a, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body.approval.rule).not.toHaveProperty('place');
    const shown = await api(urls.a, 'GET', `/v1/approvals/${id}`, { who: 'admin' });
    expect(shown.body.approval.rule.place.runs_with).toMatchObject({ 'env:HLDP_TEST_KEY': expect.stringMatching(/^[0-9a-f]{64}$/), 'apis:billing': expect.stringMatching(/^[0-9a-f]{64}$/) });
    for (const secret of [KEY_A, BILLING_TOKEN, '127.0.0.1:9/billing']) expect(JSON.stringify(shown.body)).not.toContain(secret);
    const there = await api(urls.c, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(there.status, JSON.stringify(there.body)).toBe(202);
    expect(there.body.message).toContain("the apis target 'billing' differs");
    expect(there.body.message).not.toContain('environment shell tools inherit');
    expect(there.body.message).not.toContain('billing-test');
    expect(await receiptAtA(id)).toMatchObject({ ok: true });
  });

  it('refuses a confirmation token presented at an instance whose environment differs; the token still runs the call at one run as the filing instance', { timeout: 120_000 }, async () => {
    const call = await api(urls.a, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'tok-settings.txt', content: 'ran\n' } } });
    expect(call.status, JSON.stringify(call.body)).toBe(202);
    const { id, token } = call.body as { id: string; token: string };
    const there = await api(urls.b, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
    expect(there.status, JSON.stringify(there.body)).toBe(409);
    expect(there.body).toMatchObject({ code: 'CONFIRMATION_INVALID' });
    expect(there.body.error).toContain('the environment shell tools inherit (HLDP_TEST_KEY) differs');
    expect(JSON.stringify(there.body)).not.toContain(KEY_B);
    await expectPending(id);

    const same = await api(urls.d, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
    expect(same, JSON.stringify(same.body)).toMatchObject({ status: 200, body: { ok: true, caller: 'bot' } });
    expect(await readFile(join(workspace, 'tok-settings.txt'), 'utf8')).toBe('ran\n');
  });
});
