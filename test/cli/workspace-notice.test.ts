// Review userZ3, LOW 7: as root, `hldp call` gave a root-owned HLDP_WORKSPACE to sandbox.run_as (nobody) without a
// word, where `hldp serve`, `hldp mcp` and `hldp import mcp` log it: the sandbox's notice reached no one in the CLI.
// `hldp call`, `hldp confirm` and `hldp approvals approve` now print it on stderr. Real `hldp` processes, as root (CI).
import { chmod, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;

/** The environment of one workspace folder made for the test by root, 0755 (root-owned, not sticky, not a git tree). */
async function workspace(name: string): Promise<{ folder: string; env: NodeJS.ProcessEnv }> {
  const folder = join(temp.path, name);
  await mkdir(folder, { mode: 0o755 });
  return { folder, env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, `data-${name}`), HLDP_WORKSPACE: folder } };
}

const given = (folder: string) => `hldp: the workspace ${folder} (owned by root) now belongs to uid 65534, gid 65534 (nobody), whom this root gateway runs its tools as, so that they can write in it (its contents keep their owners)\n`;

beforeAll(async () => {
  temp = await makeTempDir();
  // nobody must reach the workspaces below it (makeTempDir's own folder is 0700)
  await chmod(temp.path, 0o755);
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/touch-it/TOOL.hdlp': makeToolYaml('touch-it', { executor: 'shell', method: 'run', shell: '{ argv: [touch, made] }' }),
    'tools/held/TOOL.hdlp': makeToolYaml('held', { executor: 'shell', method: 'run', shell: '{ argv: [touch, made] }', constraints: '{ require_confirm: true }' }),
  });
});
afterAll(async () => {
  await temp?.cleanup();
});

describe('a root hldp that gives its workspace to sandbox.run_as', () => {
  it('is run as root, as CI runs it', () => {
    // the notice is root's: a gateway of another user runs its tools as itself and gives nothing away
    expect(process.getuid?.()).toBe(0);
  });

  it('says so on stderr in hldp call, once, and the tool writes there', { timeout: 120_000 }, async () => {
    const { folder, env } = await workspace('call');
    const run = await runCli(['call', 'touch-it', '--repo', repo], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(given(folder));
    expect((await stat(folder)).uid).toBe(65534);
    expect((await stat(join(folder, 'made'))).uid).toBe(65534);
    // given already: the next call has nothing to say
    const again = await runCli(['call', 'touch-it', '--repo', repo], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('now belongs to');
  });

  it('says so in hldp confirm, which runs the call that waited, not in the call that waited', { timeout: 120_000 }, async () => {
    const { folder, env } = await workspace('confirm');
    const asked = await runCli(['call', 'held', '--repo', repo, '--json'], { env });
    expect(asked.code, asked.stderr).toBe(3);
    expect(asked.stderr).not.toContain('now belongs to');
    expect((await stat(folder)).uid).toBe(0);
    const { token } = JSON.parse(asked.stdout) as { token: string };
    const confirmed = await runCli(['confirm', token, '--repo', repo], { env });
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stderr).toContain(given(folder));
    expect((await stat(folder)).uid).toBe(65534);
  });

  it('says so in hldp approvals approve', { timeout: 120_000 }, async () => {
    const { folder, env } = await workspace('approve');
    const asked = await runCli(['call', 'held', '--repo', repo, '--json'], { env });
    expect(asked.code, asked.stderr).toBe(3);
    const { id } = JSON.parse(asked.stdout) as { id: string };
    const approved = await runCli(['approvals', 'approve', id, '--repo', repo], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain(given(folder));
    expect((await stat(folder)).uid).toBe(65534);
  });

  it('says why it left a shared sticky folder root’s, and the tool still runs', { timeout: 120_000 }, async () => {
    const { folder, env } = await workspace('shared');
    await chmod(folder, 0o1777);
    const run = await runCli(['call', 'touch-it', '--repo', repo], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`hldp: the workspace ${folder} is not given to uid 65534, gid 65534 (nobody), whom this root gateway runs its tools as, and keeps its owner, root: it is a shared folder (sticky, as /tmp)`);
    expect((await stat(folder)).uid).toBe(0);
  });
});
