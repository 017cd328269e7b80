// A remote is cloned at depth 1, so `hldp serve` over a remote with an empty scan cache had no history to ask at a
// case-twin clash: a push of `tools/Deploy/` beside reviewed `tools/deploy/` handed `deploy` to the newcomer (path
// order: it sorts first). Now the scanner fetches the history that clash needs and the older tool runs; where history
// still cannot say, neither runs. The twins' name is contested: an allow rule naming it covers neither. Real
// processes: `hldp serve`, `hldp validate`, a repository served by `git http-backend`, each start with an empty cache.
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { git, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { servedRepository, type ServedRepository } from '../helpers/served-repository.js';
import { useServiceHome } from '../helpers/serve-process.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';

const home = useServiceHome('warn');

const echo = (name: string, said: string): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${said}] }` });

async function call(server: ServiceProcess, tool: string): Promise<{ ok?: boolean; tool?: string; output?: string; error?: string | null; code?: string }> {
  const response = await request(server, 'POST', '/v1/call', { body: { tool, params: {} } });
  return response.json as { ok?: boolean; tool?: string; output?: string; error?: string | null };
}

async function duplicates(server: ServiceProcess): Promise<Array<{ file: string; message: string }>> {
  const scan = await request(server, 'POST', '/v1/scan');
  return ((scan.json as { errors: Array<{ file: string; code: string; message: string }> }).errors ?? []).filter((error) => error.code === 'DUPLICATE_NAME');
}

/** A served repository whose `tools/deploy/` was reviewed, then `tools/Deploy/` pushed with commits after it. */
async function twinsPushed(extra: Record<string, string> = {}): Promise<{ served: ServedRepository; added: string }> {
  const served = await servedRepository(home.path);
  await served.push({ 'tools/deploy/TOOL.hdlp': echo('deploy', 'REVIEWED'), ...extra }, 'reviewed');
  await served.push({ 'README.md': 'unrelated\n' }, 'unrelated');
  const added = await served.push({ 'tools/Deploy/TOOL.hdlp': echo('Deploy', 'NEWCOMER') }, 'add Deploy');
  await served.push({ 'README.md': 'later\n' }, 'later');
  return { served, added };
}

const ALLOW_THEN_DENY = 'name: guard\nauthor: TEST-001\nwhy: only deploy is let through\napproval:\n  - tools: [deploy]\n    decision: allow\n  - tools: ["*"]\n    decision: deny\n    reason: nothing else\n';

describe('hldp serve over a remote, with an empty scan cache, after a push of a case twin', () => {
  it('runs the tool that held the name first in git history, fetched for that clash', async () => {
    const { served, added } = await twinsPushed();
    try {
      const server = await home.serve(['--repo', served.url]);
      // on main: `deploy` TOOL_BROKEN, `Deploy` ok, NEWCOMER (the depth-1 clone had no history, and path order chose tools/Deploy/)
      expect(await call(server, 'deploy')).toMatchObject({ ok: true, tool: 'deploy', output: 'REVIEWED\n' });
      expect(JSON.stringify(await call(server, 'Deploy'))).not.toContain('NEWCOMER');
      expect(await duplicates(server)).toEqual([
        expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(`kept because it held that name first in git history (tools/Deploy/TOOL.hdlp appeared in commit ${added.slice(0, 12)}`) }),
      ]);
    } finally {
      await served.server.close();
    }
  }, 120_000);

  it('runs neither twin where the remote holds no older history, and says why', async () => {
    const { served } = await twinsPushed();
    try {
      // the served repository is a depth-1 mirror: no history to fetch
      await rm(served.bare, { recursive: true, force: true });
      await git(home.path, 'clone', '-q', '--bare', '--depth', '1', `file://${served.work}`, served.bare);
      const server = await home.serve(['--repo', served.url]);
      // on main: the ref listing of a shallow repository was refused as malformed (its `shallow` line), and with that
      // read, `Deploy` ran NEWCOMER (path order)
      for (const name of ['deploy', 'Deploy']) expect(JSON.stringify(await call(server, name))).not.toMatch(/NEWCOMER|REVIEWED/);
      const found = await duplicates(server);
      expect(found.map((error) => error.file).sort()).toEqual(['tools/Deploy/TOOL.hdlp', 'tools/deploy/TOOL.hdlp']);
      for (const { message } of found) expect(message).toContain('neither is served: git history does not tell which is older: it ends at commit');
    } finally {
      await served.server.close();
    }
  }, 120_000);

  it('lets an allow rule naming the twins\' name cover neither, and hldp validate warns at it', async () => {
    const { served } = await twinsPushed({ 'policies/guard.hdlp': ALLOW_THEN_DENY });
    try {
      const server = await home.serve(['--repo', served.url]);
      // on main: `deploy` TOOL_BROKEN, `Deploy` ok, NEWCOMER; with history deciding, ok, REVIEWED (the allow covered whichever served the name)
      expect(await call(server, 'deploy')).toMatchObject({ ok: false, tool: 'deploy', error: expect.stringContaining('nothing else') });
      const run = await runCli(['validate', served.work], { env: home.env });
      // validate reads the files, without history: path order keeps tools/Deploy/ there, and the entry is contested alike
      expect(run.stdout + run.stderr).toMatch(/policies\/guard\.hdlp:5:\d+: .*names 'deploy', which tool '(deploy|Deploy)' answers to and '(Deploy|deploy)' is named so and refused it \(DUPLICATE_NAME\)/);
    } finally {
      await served.server.close();
    }
  }, 120_000);
});
