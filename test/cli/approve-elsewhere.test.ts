// Review userY, Y8: `hldp approvals approve ID` ran the agent's approved call in the approver's own process, against
// that process's workspace (HLDP_WORKSPACE, else the current folder): run from alice's folder, the agent's command ran
// there, read her files and wrote into them. A request now records where its gateway runs calls; a process that
// would run it elsewhere records the approval and runs nothing (review userZ4, F3: it used to decide nothing), saying
// what differs, and the gateway that filed it runs the call in its own workspace.
import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const NATIVE = fileURLToPath(new URL('../../native-repo', import.meta.url));
const BOT = 'bot-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789abcd';
const TOKENS = { HLDP_PRINCIPAL_BOT_TOKEN: BOT, HLDP_PRINCIPAL_ALICE_TOKEN: ALICE };
const HELD = ['name: held', 'author: ICE-GL-ZY001', 'why: A person looks at every command first.', 'approval:', '  - tools: [shell-exec]', '    decision: approve', '    reason: a person looks first', ''].join('\n');
const WHERE = { cmd: 'pwd; echo agent-was-here > marker.txt; ls' };

/** A gateway serving on workspace ws/, bot's request for a command filed there, and alice's own folder with her notes. */
async function filed(): Promise<{ id: string; config: string; ws: string; opdir: string; url: string; env: NodeJS.ProcessEnv }> {
  const repo = join(home.path, 'reg');
  await cp(NATIVE, repo, { recursive: true });
  await mkdir(join(repo, 'policies'));
  await writeFile(join(repo, 'policies', 'held.hdlp'), HELD);
  const config = join(home.path, 'hldp.yaml');
  await writeFile(config, [`repository: { source: ${repo} }`, 'principals:', '  bot: { roles: [agent] }', '  alice: { roles: [approver] }', ''].join('\n'));
  const ws = join(home.path, 'ws');
  const opdir = join(home.path, 'opdir');
  await mkdir(ws);
  await mkdir(opdir);
  await writeFile(join(opdir, 'notes.txt'), "the operator's own file\n");
  const server = await home.serve(['--config', config], { ...TOKENS, HLDP_WORKSPACE: ws });
  const answer = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: WHERE }, headers: { authorization: `Bearer ${BOT}` } });
  expect(answer.status).toBe(202);
  // alice's shell: the store and config the README names, but not the gateway's workspace
  const env: NodeJS.ProcessEnv = { ...home.env, ...TOKENS, HLDP_TOKEN: ALICE, HLDP_WORKSPACE: '' };
  return { id: (answer.json as { id: string }).id, config, ws, opdir, url: server.url, env };
}

describe('hldp approvals approve from another folder than the gateway runs calls in (Y8)', () => {
  it("runs nothing there: records the approval, says what differs, and the gateway that filed it runs the call in its workspace", async () => {
    const { id, config, ws, opdir, url, env } = await filed();
    const approve = await runCli(['approvals', 'approve', id, '--config', config], { cwd: opdir, env });
    expect(approve.code, approve.stdout + approve.stderr).toBe(0);
    expect(approve.stderr).toContain(`${id} approved by alice`);
    expect(approve.stderr).toContain("nothing has run yet: 'shell-exec' runs once at the gateway that filed it, at ");
    expect(approve.stderr).toContain(`its workspace is ${ws}, this process's is ${opdir}`);
    // nothing ran in alice's folder; the gateway runs it in its workspace, and the waiting caller gets its receipt
    expect((await readdir(opdir)).sort()).toEqual(['notes.txt']);
    let waited = await request({ url }, 'GET', `/v1/approvals/${id}?wait=60`, { headers: { authorization: `Bearer ${BOT}` } });
    for (let attempt = 0; attempt < 2 && (waited.json as { receipt: unknown }).receipt === null; attempt += 1) waited = await request({ url }, 'GET', `/v1/approvals/${id}?wait=60`, { headers: { authorization: `Bearer ${BOT}` } });
    expect(waited.json, JSON.stringify(waited.json)).toMatchObject({ approval: { status: 'approved', decided_by: 'alice' }, receipt: { ok: true, caller: 'bot' } });
    expect((waited.json as { receipt: { output: string } }).receipt.output).toMatch(new RegExp(`^${ws}\\n`));
    expect((await readdir(ws)).sort()).toEqual(['marker.txt']);
    expect((await readdir(opdir)).sort()).toEqual(['notes.txt']);
  });

  it("runs the call in the gateway's workspace when the approver's process has it", async () => {
    const { id, config, ws, opdir, env } = await filed();
    const approve = await runCli(['approvals', 'approve', id, '--config', config, '--json'], { cwd: opdir, env: { ...env, HLDP_WORKSPACE: ws } });
    expect(approve.code, approve.stderr).toBe(0);
    expect(JSON.parse(approve.stdout).receipt.output).toMatch(new RegExp(`^${ws}\\n`));
    expect((await readdir(opdir)).sort()).toEqual(['notes.txt']);
    expect((await readdir(ws)).sort()).toEqual(['marker.txt']);
    // and the request shows who ran it and where (review userY, Y5: show printed no run)
    const show = await runCli(['approvals', 'show', id, '--config', config], { cwd: opdir, env: { ...env, HLDP_WORKSPACE: ws } });
    expect(show.stdout).toMatch(/\nrun {7}by \S+ pid \d+ \(instance [0-9a-f-]+\)\n/);
    expect(show.stdout).toContain(`\nruns in   ${ws} (sandbox `);
  });

  it('a request filed before requests recorded their place is left pending by the CLI, and said so', async () => {
    const { id, config, ws, opdir, url, env } = await filed();
    // as a request of the previous version is stored: its rule without a place
    const database = new Database(join(home.path, 'data', 'receipts.db'));
    const rule = JSON.parse((database.prepare('SELECT rule FROM approvals WHERE id = ?').get(id) as { rule: string }).rule) as Record<string, unknown>;
    delete rule.place;
    database.prepare('UPDATE approvals SET rule = ? WHERE id = ?').run(JSON.stringify(rule), id);
    database.close();
    const approve = await runCli(['approvals', 'approve', id, '--config', config], { cwd: ws, env: { ...env, HLDP_WORKSPACE: ws } });
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain(`request '${id}' was filed before requests recorded where their call runs`);
    expect((await readdir(ws)).sort()).toEqual([]);
    // the gateway that filed it still decides it, as before
    const decided = await request({ url }, 'POST', `/v1/approvals/${id}/approve`, { body: {}, headers: { authorization: `Bearer ${ALICE}` } });
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);
    expect((await readdir(ws)).sort()).toEqual(['marker.txt']);
    expect((await readdir(opdir)).sort()).toEqual(['notes.txt']);
  });
});
