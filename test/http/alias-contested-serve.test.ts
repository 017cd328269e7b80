// Review Z, Z1 (second half): an entry that is one tool's name and another tool's declared alias (refused it,
// ALIAS_CONFLICT) covered only the tool named so: a deny rule or a `sessions.deny` entry written for the tool that
// declares the alias let it run. Now a list that restricts covers both, one that allows covers neither, and
// `hldp validate` warns at the entry. Real processes: `hldp serve` and `hldp validate` over a real git repository.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';

const home = useServiceHome('warn');

const echo = (name: string, said: string, aliases = '[]'): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${said}] }`, aliases });

async function call(server: ServiceProcess, tool: string): Promise<{ status: number; json: { ok?: boolean; tool?: string; output?: string; error?: string | null; code?: string } }> {
  const response = await request(server, 'POST', '/v1/call', { body: { tool, params: {} } });
  return { status: response.status, json: response.json as { ok?: boolean; tool?: string; output?: string; error?: string | null } };
}

// rm-file is a tool; file-delete, added after it, declares rm-file as an alias, which it is refused
async function contestedRepository(policy?: string): Promise<string> {
  const repo = await initRepository(join(home.path, 'repo'));
  await commitFiles(repo, { 'tools/rm-file/TOOL.hdlp': echo('rm-file', 'RM-FILE-RAN') });
  await commitFiles(repo, { 'tools/file-delete/TOOL.hdlp': echo('file-delete', 'FILE-DELETE-RAN', '[rm-file]'), ...(policy ? { 'policies/guard.hdlp': policy } : {}) }, 'add file-delete');
  return repo;
}

const DENY = 'name: guard\nauthor: TEST-001\nwhy: agents never delete files\napproval:\n  - tools: [rm-file]\n    decision: deny\n    reason: no deleting\n';
const ALLOW_THEN_DENY = 'name: guard\nauthor: TEST-001\nwhy: only rm-file is let through\napproval:\n  - tools: [rm-file]\n    decision: allow\n  - tools: ["*"]\n    decision: deny\n    reason: nothing else\n';

describe('a policy entry that is one tool\'s name and another tool\'s refused alias', () => {
  it('denies both tools when the rule denies', async () => {
    const repo = await contestedRepository(DENY);
    const server = await home.serve(['--repo', repo]);
    expect((await call(server, 'rm-file')).json).toMatchObject({ ok: false, tool: 'rm-file', error: expect.stringContaining('denied, nothing ran: no deleting') });
    // on main: ok, FILE-DELETE-RAN (the rule covered rm-file only)
    expect((await call(server, 'file-delete')).json).toMatchObject({ ok: false, tool: 'file-delete', error: expect.stringContaining('denied, nothing ran: no deleting') });
  }, 120_000);

  it('allows neither when the rule allows, so the rules after it decide', async () => {
    const repo = await contestedRepository(ALLOW_THEN_DENY);
    const server = await home.serve(['--repo', repo]);
    // on main: ok, RM-FILE-RAN
    expect((await call(server, 'rm-file')).json).toMatchObject({ ok: false, tool: 'rm-file', error: expect.stringContaining('nothing else') });
    expect((await call(server, 'file-delete')).json).toMatchObject({ ok: false, tool: 'file-delete', error: expect.stringContaining('nothing else') });
  }, 120_000);

  it('is a warning of hldp validate at the entry, naming both tools', async () => {
    const repo = await contestedRepository(DENY);
    const run = await runCli(['validate', repo], { env: home.env });
    // on main: no CONTESTED_NAME at all
    expect(run.stdout + run.stderr).toMatch(/policies\/guard\.hdlp:5:\d+: .*names 'rm-file', which tool 'rm-file' answers to and 'file-delete' declares as an alias it was refused/);
  }, 120_000);
});

describe('a sessions.deny entry that is one tool\'s name and another tool\'s refused alias', () => {
  it('refuses both tools, and says so in the log', async () => {
    const repo = await contestedRepository();
    const config = join(home.path, 'config.yaml');
    await writeFile(config, 'sessions: { deny: [rm-file] }\n');
    const server = await home.serve(['--repo', repo], { HLDP_CONFIG: config });
    expect(await call(server, 'rm-file')).toMatchObject({ status: 403, json: { code: 'TOOL_FORBIDDEN' } });
    // on main: 200, FILE-DELETE-RAN
    const deleted = await call(server, 'file-delete');
    expect(deleted).toMatchObject({ status: 403, json: { code: 'TOOL_FORBIDDEN' } });
    expect(deleted.json.error).toMatch(/sessions\.deny/);
    await vi.waitFor(() => expect(server.stderr()).toMatch(/sessions\.deny names 'rm-file', which tool 'rm-file' answers to and 'file-delete' declares/), { timeout: 10_000, interval: 20 });
  }, 120_000);
});
