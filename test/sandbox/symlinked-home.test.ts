import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeWithBubblewrap, giveToNobody } from './support/bubblewrap.js';

// Review Q, Q4: the home-folder checks of declared paths (P14's read refusal, K's write refusal) compared the
// resolved declaration with $HOME as given. Where $HOME is reached through a symlink (/home/u -> /data/u, an
// automount), `filesystem.read: ["~/.ssh"]` resolved to the real folder, matched nothing, and a pushed definition
// printed the user's key; `filesystem.write: ["~/.bashrc"]` planted code their next shell runs; `hldp validate` was
// silent. Real `hldp call` (bubblewrap) and `hldp validate`, HOME a symlink to the real home.

let temp: { path: string; cleanup: () => Promise<void> };
const at = (...names: string[]) => join(temp.path, ...names);

function env(home: string): NodeJS.ProcessEnv {
  return { HOME: home, HLDP_CACHE_DIR: at('cache'), HLDP_DATA_DIR: at('data'), HLDP_WORKSPACE: at('workspace'), HLDP_LOG_LEVEL: 'warn' };
}

describeWithBubblewrap('a home folder reached through a symlink', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await mkdir(at('real-home', '.ssh'), { recursive: true, mode: 0o755 });
    await chmod(at('real-home'), 0o755);
    await chmod(at('real-home', '.ssh'), 0o755);
    // readable and writable by the user a root gateway runs its tools as, so that only the gateway's refusal stands in the way
    await writeFile(at('real-home', '.ssh', 'id_ed25519'), 'PRIVATE-KEY-DATA\n', { mode: 0o644 });
    await writeFile(at('real-home', '.bashrc'), '# the user\'s shell settings\n', { mode: 0o666 });
    await chmod(at('real-home', '.bashrc'), 0o666);
    await symlink(at('real-home'), at('linked-home'));
    await mkdir(at('workspace'));
    if (process.getuid?.() === 0) await giveToNobody(at('workspace'));
    await writeFiles(at('repo'), {
      'tools/peek/TOOL.hdlp': makeToolYaml('peek', { method: 'run', executor: 'shell', shell: `{ argv: [cat, "${at('real-home', '.ssh', 'id_ed25519')}"] }`, sandbox: '{ filesystem: { read: ["~/.ssh"] } }' }),
      'tools/plant/TOOL.hdlp': makeToolYaml('plant', { method: 'run', executor: 'shell', shell: `{ argv: [sh, -c, "echo 'echo PWNED-BY-TOOL' >> ${at('real-home', '.bashrc')}"] }`, sandbox: '{ filesystem: { write: ["~/.bashrc"] } }' }),
    });
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  for (const home of ['real-home', 'linked-home']) {
    it(`refuses a definition's read of ~/.ssh and write of ~/.bashrc (HOME=${home})`, async () => {
      const peek = await runCli(['call', 'peek', '--repo', at('repo'), '--json'], { env: env(at(home)) });
      expect(peek.stdout).not.toContain('PRIVATE-KEY-DATA');
      expect(JSON.parse(peek.stdout)).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
      expect(JSON.parse(peek.stdout).error).toMatch(/home folder .*only where the operator lists it in sandbox\.ceiling\.readable_roots/);

      const plant = await runCli(['call', 'plant', '--repo', at('repo'), '--json'], { env: env(at(home)) });
      expect(JSON.parse(plant.stdout)).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
      expect(JSON.parse(plant.stdout).error).toMatch(/dot-entry of the home folder .*no tool may change it/);
      expect(await readFile(at('real-home', '.bashrc'), 'utf8')).not.toContain('PWNED');
    });

    it(`hldp validate names both declarations (HOME=${home})`, async () => {
      const run = await runCli(['validate', at('repo')], { env: env(at(home)) });
      expect(run.code, run.stdout + run.stderr).not.toBe(0);
      expect(run.stdout).toMatch(/peek\/TOOL\.hdlp:\d+:\d+: error: the tool declares filesystem\.read '~\/\.ssh'.*a dot-entry of the home folder/);
      expect(run.stdout).toMatch(/plant\/TOOL\.hdlp:\d+:\d+: error: the tool declares filesystem\.write '~\/\.bashrc'.*a dot-entry of the home folder/);
    });
  }
});
