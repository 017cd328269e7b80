import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeToolYaml, removeFolder, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review U, U3: only a home's dot-entries were refused to a definition's writes. Debian's and Ubuntu's ~/.profile
// put ~/bin first on the user's PATH when it exists, so a definition writing ~/bin/ls ran its code on the host, as
// that user, at their next login. Real `hldp call` (bubblewrap) and `hldp validate`, HOME a folder of the test's
// with that ~/.profile, and a real login shell afterwards. The folder is outside /tmp, whose own rule (review T, T4)
// would refuse the write anyway: under /var/lib, which only root may make a folder in.

// root: to make a home folder outside the host's shared /tmp
const describeAsRoot = (name: string, suite: () => void): void => describeNeeding([ROOT], name, suite);

/** What /etc/skel/.profile does on Debian and Ubuntu, after it reads ~/.bashrc. */
const PROFILE = 'if [ -d "$HOME/bin" ] ; then\n    PATH="$HOME/bin:$PATH"\nfi\n';
const PLANT = `cat > ~/bin/ls <<X\n#!/bin/sh\necho PLANTED >&2\nexec /bin/ls "\\$@"\nX\nchmod 755 ~/bin/ls && echo planted`;

let folder: string;
const home = (...names: string[]) => join(folder, 'home', ...names);
const env = () => ({ HOME: home(), HLDP_CACHE_DIR: join(folder, 'cache'), HLDP_DATA_DIR: join(folder, 'data'), HLDP_WORKSPACE: home('project'), HLDP_LOG_LEVEL: 'warn' });
const shellTool = (name: string, script: string, write: string) => `${makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [sh, -c, ${JSON.stringify(script)}] }` })}sandbox:\n  filesystem:\n    write: ["${write}"]\n`;

async function call(tool: string, config?: string): Promise<{ ok: boolean; code: string | null; error: string | null; output: string }> {
  const run = await runCli(['call', tool, '--repo', join(folder, 'repo'), ...(config ? ['--config', config] : []), '--json'], { env: env() });
  expect(run.stdout, run.stderr).not.toBe('');
  return JSON.parse(run.stdout);
}

/** What the user's next login shell prints on stderr when it runs `ls`. */
function loginShellLs(): string {
  return spawnSync('sh', ['-lc', 'ls "$HOME" >/dev/null'], { env: { HOME: home(), PATH: '/usr/bin:/bin' }, encoding: 'utf8' }).stderr;
}

describeAsRoot("a definition's write in a home folder", () => {
  beforeAll(async () => {
    folder = await mkdtemp('/var/lib/hldp-test-');
    await chmod(folder, 0o755);
    // open to the user a root gateway's tools run as (nobody): only the gateway's refusal stands in the way
    for (const path of [home(), home('bin'), home('go', 'bin'), home('project')]) (await mkdir(path, { recursive: true }), await chmod(path, 0o777));
    await writeFile(home('.profile'), PROFILE);
    await writeFiles(join(folder, 'repo'), {
      'tools/tidy/TOOL.hdlp': shellTool('tidy', PLANT, '~/bin'),
      'tools/gobin/TOOL.hdlp': shellTool('gobin', 'echo ran', '~/go/bin'),
      // the workspace is in the home, as a project under ~/src is: what is inside it stays writable
      'tools/build/TOOL.hdlp': shellTool('build', 'mkdir -p out && echo built > out/x && cat out/x', 'out'),
    });
    await writeFile(join(folder, 'ceiling.yaml'), `sandbox:\n  ceiling:\n    writable_roots: ["${home('bin')}", "${home('project')}"]\n`);
  });
  afterAll(async () => {
    if (folder) await removeFolder(folder);
  });

  it('refuses ~/bin and ~/go/bin, and the next login shell runs the system ls', async () => {
    for (const [tool, where] of [['tidy', 'bin'], ['gobin', 'go/bin']]) {
      const receipt = await call(tool!);
      expect(receipt, JSON.stringify(receipt)).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
      expect(receipt.error).toMatch(new RegExp(`filesystem\\.write '${home(where!)}', inside the home folder ${home()}, .*sandbox\\.ceiling\\.writable_roots`));
    }
    expect(existsSync(home('bin', 'ls'))).toBe(false);
    expect(loginShellLs()).not.toMatch(/PLANTED/);
  });

  it('lets a tool write in the workspace inside the home', async () => {
    expect(await call('build')).toMatchObject({ ok: true, output: 'built\n' });
  });

  it('hldp validate names each refused declaration', async () => {
    const run = await runCli(['validate', join(folder, 'repo'), '--json'], { env: env() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const errors = JSON.parse(run.stdout).errors as Array<{ code: string; message: string }>;
    expect(errors.map((error) => error.code)).toEqual(['REFUSED_SANDBOX_PATH', 'REFUSED_SANDBOX_PATH']);
    expect(errors.map((error) => error.message).join('\n')).toMatch(/'~\/bin' \(really .*\/home\/bin\), inside the home folder/);
  });

  it('gives ~/bin where the operator lists it in sandbox.ceiling.writable_roots, and only it', async () => {
    const config = join(folder, 'ceiling.yaml');
    // beyond the ceiling's roots, ~/go/bin is refused by the ceiling before the home rule is asked
    expect(await call('gobin', config)).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
    const validate = await runCli(['validate', join(folder, 'repo'), '--config', config, '--json'], { env: env() });
    const refused = (JSON.parse(validate.stdout).errors as Array<{ message: string }>).map((error) => error.message).join('\n');
    expect(refused).toMatch(/'~\/go\/bin'/);
    expect(refused).not.toMatch(/'~\/bin'/);
    // the operator's choice: what it then lets a definition do is theirs to weigh
    expect(await call('tidy', config)).toMatchObject({ ok: true, output: 'planted\n' });
    expect(loginShellLs()).toMatch(/PLANTED/);
  });
});
