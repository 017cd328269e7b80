import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeToolYaml, removeFolder, writeFiles } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review userZ10, U10-5: `python3` on the gateway's PATH was pyenv's shim, /root/.pyenv/shims/python3. The sandbox
// shows PATH folders, so the shim ran, but not the rest of the home folder: its `exec /root/.pyenv/libexec/pyenv` failed
// with exit 127 and pyenv's own words, and the receipt said nothing of the sandbox. Now one line is added to the error
// (the tool's stderr kept as it was) naming the folder the sandbox hides and the fix. A fake shim in a home folder of
// the test's, a real `hldp serve` (bubblewrap) called over HTTP as an agent calls it. The home is under /var/lib, which
// only root may make a folder in: one under /tmp would be the run's own private /tmp.

let folder: string;
let gateway: ServiceProcess | undefined;
const home = (...names: string[]): string => join(folder, 'home', ...names);

const SHIM = (target: string, name: string): string => `#!/bin/sh\nexec "${target}" exec ${name} "$@"\n`;

const shellTool = (name: string, script: string, extra = ''): string =>
  `${makeToolYaml(name, { executor: 'shell', method: 'run', intent: `runs ${name} for the test`, shell: `{ script: ${JSON.stringify(script)} }` })}${extra}`;

interface Receipt {
  ok: boolean;
  code: string | null;
  exit_code: number | null;
  output: string;
  error: string | null;
  stderr: string;
}

async function call(tool: string): Promise<Receipt> {
  const response = await fetch(`${gateway!.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params: {} }) });
  return (await response.json()) as Receipt;
}

describeNeeding([ROOT], 'a program the sandbox cannot find in a home folder it hides', () => {
  beforeAll(async () => {
    folder = await mkdtemp('/var/lib/hldp-test-');
    await chmod(folder, 0o755);
    for (const path of [home(), home('.fakeenv', 'shims'), home('.fakeenv', 'libexec'), join(folder, 'ws')]) await mkdir(path, { recursive: true, mode: 0o755 });
    for (const path of [home(), home('.fakeenv'), home('.fakeenv', 'shims'), home('.fakeenv', 'libexec')]) await chmod(path, 0o755);
    const fakeenv = home('.fakeenv', 'libexec', 'fakeenv');
    await writeFile(fakeenv, '#!/bin/sh\necho "fakeenv ran $*"\n', { mode: 0o755 });
    // the shims pyenv writes: a script on PATH that runs the home's real program
    await writeFile(home('.fakeenv', 'shims', 'fakepy'), SHIM(fakeenv, 'fakepy'), { mode: 0o755 });
    await writeFile(home('.fakeenv', 'shims', 'ls'), SHIM(fakeenv, 'ls'), { mode: 0o755 });
    await writeFiles(join(folder, 'repo'), {
      'tools/pyish/TOOL.hdlp': shellTool('pyish', "fakepy -c 'print(1)'"),
      'tools/lsish/TOOL.hdlp': shellTool('lsish', 'ls .'),
      // what the line says to do: the operator's ceiling (below) and the definition's read
      'tools/pyread/TOOL.hdlp': shellTool('pyread', "fakepy -c 'print(1)'", `sandbox:\n  filesystem:\n    read: ["${home('.fakeenv')}"]\n`),
      // the home's program named by its path in argv: it never starts
      'tools/direct/TOOL.hdlp': makeToolYaml('direct', { executor: 'shell', method: 'run', intent: 'runs direct for the test', shell: `{ argv: ["${home('.fakeenv', 'libexec', 'fakeenv')}", x] }` }),
      // not found where the sandbox shows everything: no line
      'tools/nosuch/TOOL.hdlp': shellTool('nosuch', 'exec /usr/bin/hldp-no-such-program'),
      // a hidden path in a failure that is no "not found" (exit 1): no line
      'tools/other/TOOL.hdlp': shellTool('other', `echo "${home('.fakeenv', 'libexec', 'fakeenv')}: bad input" >&2; exit 1`),
    });
    const config = join(folder, 'config.yaml');
    await writeFile(config, `sandbox:\n  ceiling:\n    readable_roots: ["${home('.fakeenv')}"]\n`);
    gateway = await spawnService(['serve', '--port', '0', '--repo', join(folder, 'repo'), '--config', config], {
      HOME: home(),
      PATH: `${home('.fakeenv', 'shims')}${delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
      HLDP_WORKSPACE: join(folder, 'ws'),
      HLDP_CACHE_DIR: join(folder, 'cache'),
      HLDP_DATA_DIR: join(folder, 'data'),
      HLDP_SANDBOX: 'required',
      HLDP_LOG_LEVEL: 'warn',
    }, / at (http:\/\/[\d.:]+)\n/);
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    if (folder) await removeFolder(folder);
  });

  it("adds one line naming the hidden folder and the fix after the shim's own error, which stays raw", async () => {
    const receipt = await call('pyish');
    expect(receipt, JSON.stringify(receipt)).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 127, output: '' });
    // the tool's stderr as it wrote it, naming the program it did not find; nothing of the gateway's in it
    expect(receipt.stderr).toContain(home('.fakeenv', 'libexec', 'fakeenv'));
    expect(receipt.stderr).not.toContain('hldp:');
    const lines = receipt.error!.split('\n').filter((line) => line !== '');
    expect(receipt.error!.startsWith(receipt.stderr)).toBe(true);
    expect(lines.at(-1)).toBe(
      `hldp: '${home('.fakeenv', 'libexec', 'fakeenv')}' lies in ${home('.fakeenv')}, in the home folder ${home()}, which the sandbox does not show tools: a program there (or one a shim runs from there) is not found in the sandbox; ` +
        `to give it, the operator lists ${home('.fakeenv')} in sandbox.ceiling.readable_roots and the definition declares sandbox: {filesystem: {read: [${home('.fakeenv')}]}}; or call a system program (in /usr/bin) by its absolute path`,
    );
  });

  it('names the system program of the same name where there is one', async () => {
    const receipt = await call('lsish');
    expect(receipt, JSON.stringify(receipt)).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 127 });
    expect(receipt.error!.split('\n').filter((line) => line !== '').at(-1)).toMatch(new RegExp(`^hldp: '${home('.fakeenv', 'libexec', 'fakeenv')}' lies in ${home('.fakeenv')}, .*; or call (/usr)?/bin/ls, which the sandbox shows$`));
  });

  it('says the same of a program named by its path that never started', async () => {
    const receipt = await call('direct');
    expect(receipt, JSON.stringify(receipt)).toMatchObject({ ok: false, code: 'SPAWN_FAILED' });
    expect(receipt.error!.split('\n').at(-1)).toMatch(new RegExp(`^hldp: '${home('.fakeenv', 'libexec', 'fakeenv')}' lies in ${home('.fakeenv')}, in the home folder `));
  });

  it('runs the shim once the line is followed: the ceiling lists the folder and the definition reads it', async () => {
    expect(await call('pyread')).toMatchObject({ ok: true, output: 'fakeenv ran exec fakepy -c print(1)\n' });
  });

  it('adds nothing where the sandbox shows the path, or the failure is not "not found"', async () => {
    const missing = await call('nosuch');
    expect(missing, JSON.stringify(missing)).toMatchObject({ ok: false, exit_code: 127 });
    expect(missing.error).not.toContain('hldp:');
    const other = await call('other');
    expect(other, JSON.stringify(other)).toMatchObject({ ok: false, exit_code: 1 });
    expect(other.error).toBe(other.stderr);
  });
});
