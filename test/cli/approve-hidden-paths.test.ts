// Review Z (LOW): `hldp approvals approve` checked that the gateway that filed a request runs calls where this process
// would (workspace, sandbox mode, sandbox.run_as), but not what that gateway hides from tools (`sandbox.hide`) nor its
// ceilings (`sandbox.ceiling`, max_call_timeout_ms): an approver who followed the refusal's variables instead of
// `--config` ran the agent's call with nothing of `sandbox.hide` hidden. A request now records those too; a process
// that differs runs nothing — it records the approval, naming what differs, and the gateway runs the call with its
// own hide (review userZ4, F3) — and a request filed before they were kept is left pending.
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const NATIVE = fileURLToPath(new URL('../../native-repo', import.meta.url));
const ADMIN = 'admin-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789abcd';
const HELD = ['name: held', 'author: ICE-GL-ZY001', 'why: A person looks at every command first.', 'approval:', '  - tools: [shell-exec]', '    decision: approve', '    reason: a person looks first', ''].join('\n');

/** A gateway hiding secrets.env from tools, and admin's request for a command that reads it, filed there. */
async function filed(ceiling?: string): Promise<{ id: string; config: string; repo: string; secret: string; url: string; env: NodeJS.ProcessEnv }> {
  const repo = join(home.path, 'reg');
  await cp(NATIVE, repo, { recursive: true });
  await mkdir(join(repo, 'policies'));
  await writeFile(join(repo, 'policies', 'held.hdlp'), HELD);
  const secret = join(home.path, 'etc', 'secrets.env');
  await mkdir(join(home.path, 'etc'));
  await writeFile(secret, 'DB_PASSWORD=hunter2\n');
  const config = join(home.path, 'hldp.yaml');
  await writeFile(config, [`repository: { source: ${repo} }`, 'principals:', '  alice: { roles: [approver] }', 'sandbox:', `  hide: [${secret}]`, ...(ceiling ? [`  ceiling: ${ceiling}`] : []), ''].join('\n'));
  // the approver's shell: the store, the workspace, the api_token of the request's caller; alice's token for --config
  const env: NodeJS.ProcessEnv = { ...home.env, HLDP_API_TOKEN: ADMIN, HLDP_PRINCIPAL_ALICE_TOKEN: ALICE };
  const server = await home.serve(['--config', config], { HLDP_API_TOKEN: ADMIN, HLDP_PRINCIPAL_ALICE_TOKEN: ALICE });
  const answer = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: `cat ${secret} 2>/dev/null; echo done` } }, headers: { authorization: `Bearer ${ADMIN}` } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(202);
  return { id: (answer.json as { id: string }).id, config, repo, secret, url: server.url, env };
}

describe('hldp approvals approve without the config of a gateway that hides paths from tools', () => {
  it('runs nothing here, names sandbox.hide as what differs, and the gateway runs the approved call with it hidden', { timeout: 120_000 }, async () => {
    const { id, repo, secret, url, env } = await filed();
    // the workspace, sandbox mode and run_as are the gateway's (the variables the refusal used to offer): only hide differs
    const bare = await runCli(['approvals', 'approve', id, '--repo', repo], { env });
    expect(bare.code, bare.stdout + bare.stderr).toBe(0);
    expect(bare.stderr).toContain(`${id} approved by local`);
    expect(bare.stderr).toContain(`not here, which runs calls elsewhere (its sandbox.hide is ${secret}, this process's is (none))`);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).not.toContain('hunter2');
    let waited = await request({ url }, 'GET', `/v1/approvals/${id}?wait=60`, { headers: { authorization: `Bearer ${ADMIN}` } });
    for (let attempt = 0; attempt < 2 && (waited.json as { receipt: unknown }).receipt === null; attempt += 1) waited = await request({ url }, 'GET', `/v1/approvals/${id}?wait=60`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const { approval, receipt } = waited.json as { approval: Record<string, unknown>; receipt: { output: string } };
    expect(approval, JSON.stringify(waited.json)).toMatchObject({ status: 'approved', rule: { place: { hide: [secret], ceiling: null, max_call_timeout_ms: 3_600_000 } } });
    expect(receipt.output).toContain('done');
    expect(receipt.output).not.toContain('hunter2');
  });

  it('names a deadline ceiling set otherwise as what differs', { timeout: 120_000 }, async () => {
    const { id, config, env } = await filed();
    const shorter = await runCli(['approvals', 'approve', id, '--config', config], { env: { ...env, HLDP_MAX_CALL_TIMEOUT_MS: '1000' } });
    expect(shorter.code, shorter.stdout + shorter.stderr).toBe(0);
    expect(shorter.stderr).toContain("its deadline ceiling (max_call_timeout_ms) is 3600000, this process's is 1000");
    expect(shorter.stderr).not.toContain('sandbox.hide');
  });

  it('names a ceiling as the config writes it, not as it is kept (review userZ2, U7)', { timeout: 120_000 }, async () => {
    const { id, repo, secret, env } = await filed('{ memory: 1GiB, network: false, processes: 64 }');
    const plain = join(home.path, 'config-nohide.yaml');
    await writeFile(plain, [`repository: { source: ${repo} }`, 'principals:', '  alice: { roles: [approver] }', ''].join('\n'));
    const refused = await runCli(['approvals', 'approve', id, '--config', plain], { env });
    expect(refused.code, refused.stdout + refused.stderr).toBe(0);
    expect(refused.stderr).toContain(`its sandbox.hide is ${secret}, this process's is (none); its sandbox.ceiling is {network: false, memory: 1GiB, processes: 64}, this process's is (unset))`);
    expect(refused.stderr).not.toContain('limits');
  });

  it('leaves a request filed before requests recorded sandbox.hide pending, and says so', { timeout: 120_000 }, async () => {
    const { id, config, url, env } = await filed();
    // as a request of the previous version is stored: its place without hide, ceiling and the deadline ceiling
    const database = new Database(join(home.path, 'data', 'receipts.db'));
    const rule = JSON.parse((database.prepare('SELECT rule FROM approvals WHERE id = ?').get(id) as { rule: string }).rule) as { place: Record<string, unknown> };
    for (const key of ['hide', 'ceiling', 'max_call_timeout_ms']) delete rule.place[key];
    database.prepare('UPDATE approvals SET rule = ? WHERE id = ?').run(JSON.stringify(rule), id);
    database.close();
    const approve = await runCli(['approvals', 'approve', id, '--config', config], { env });
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain(`request '${id}' was filed before requests recorded the gateway's sandbox.hide, sandbox.ceiling, deadline ceiling (max_call_timeout_ms)`);
    // the gateway that filed it still decides it
    const decided = await request({ url }, 'POST', `/v1/approvals/${id}/approve`, { body: {}, headers: { authorization: `Bearer ${ALICE}` } });
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);
  });
});
