import { readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review U, U2: a root gateway with `sandbox.run_as: <a real user>` guarded /root (its own $HOME) and never the
// home of the user its tools run as: a pushed definition read that user's ~/.profile (their ~/.ssh alike) and could
// write their ~/.bashrc, which their next shell runs outside any sandbox. Real `hldp validate` and `hldp call` (bubblewrap)
// as root, run_as the host's first ordinary user (uid 1000, as this CI machine has); nothing in that home is
// changed: the tools only test what they could reach.

/** The host's uid-1000 user with a home folder that exists, as /etc/passwd gives them, or undefined. */
function ordinaryUser(): { name: string; home: string } | undefined {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, , , home] = line.split(':');
    if (uid === '1000' && name && home && home !== '/' && statSync(home, { throwIfNoEntry: false })?.isDirectory()) return { name, home };
  }
  return undefined;
}

const user = process.getuid?.() === 0 ? ordinaryUser() : undefined;
const describeWithUser = (name: string, suite: () => void): void => describeNeeding([ROOT, { part: 'a uid-1000 user with a home folder', present: ordinaryUser() !== undefined, provided: '.ci/run makes one (useradd -m -u 1000) where the machine has none' }], name, suite);

let temp: { path: string; cleanup: () => Promise<void> };
const at = (...names: string[]) => join(temp.path, ...names);
const env = () => ({ HLDP_CACHE_DIR: at('cache'), HLDP_DATA_DIR: at('data'), HLDP_WORKSPACE: at('workspace'), HLDP_LOG_LEVEL: 'warn' });

function tool(name: string, script: string, read: string[], write: string[]): string {
  return `${makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [sh, -c, '${script}'] }` })}sandbox:\n  filesystem:\n    read: [${read.join(', ')}]\n    write: [${write.join(', ')}]\n`;
}

describeWithUser("a root gateway's run_as user's home folder", () => {
  const { name, home } = user ?? { name: '', home: '' };
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await mkdir(at('workspace'), { mode: 0o777 });
    await chmod(at('workspace'), 0o777);
    await writeFiles(at('repo'), {
      // what the reviewer's definition did: read their shell settings, and find their ~/.bashrc writable
      'tools/their-home/TOOL.hdlp': tool('their-home', `echo uid $(id -u); test -w ${home}/.bashrc && echo WRITABLE; head -c 40 ${home}/.profile`, [`${home}/.profile`], [`${home}/.bashrc`]),
      'tools/their-keys/TOOL.hdlp': tool('their-keys', 'ls -a', [`${home}/.ssh`], []),
      // a folder of their home that is no dot-entry, which their ~/.profile may put first on their PATH (U3)
      'tools/their-bin/TOOL.hdlp': tool('their-bin', 'echo ran', [], [`${home}/bin`]),
    });
    await writeFile(at('config.yaml'), `sandbox:\n  mode: required\n  run_as: ${name}\n`);
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  it('hldp call refuses each declaration, and no tool runs', async () => {
    const expected: Record<string, RegExp> = {
      'their-home': new RegExp(`filesystem\\.read '${home}/\\.profile', a dot-entry of the home folder ${home} .*readable_roots`),
      'their-keys': new RegExp(`filesystem\\.read '${home}/\\.ssh', a dot-entry of the home folder ${home}`),
      'their-bin': new RegExp(`filesystem\\.write '${home}/bin', inside the home folder ${home}, .*sandbox\\.ceiling\\.writable_roots`),
    };
    for (const [tool, message] of Object.entries(expected)) {
      const run = await runCli(['call', tool, '--repo', at('repo'), '--config', at('config.yaml'), '--json'], { env: env() });
      expect(run.stdout, run.stderr).not.toBe("");
      const receipt = JSON.parse(run.stdout) as { ok: boolean; code: string; error: string; output: string };
      expect(receipt, run.stdout + run.stderr).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
      expect(receipt.error).toMatch(message);
    }
  });

  it('hldp validate names the same declarations, at their lines', async () => {
    const run = await runCli(['validate', at('repo'), '--config', at('config.yaml'), '--json'], { env: env() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const errors = JSON.parse(run.stdout).errors as Array<{ file: string; code: string; message: string }>;
    expect(errors.map((error) => error.code)).toEqual(Array(4).fill('REFUSED_SANDBOX_PATH'));
    const messages = errors.map((error) => error.message).join('\n');
    expect(messages).toMatch(new RegExp(`filesystem\\.write '${home}/\\.bashrc', a dot-entry of the home folder ${home} .*no tool may change it`));
    expect(messages).toMatch(new RegExp(`filesystem\\.write '${home}/bin', inside the home folder ${home}`));
  });
});
