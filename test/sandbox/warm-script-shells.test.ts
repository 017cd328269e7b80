import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveToolSandbox } from '../../src/core/index.js';
import { minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { warmScript } from '../../src/sandbox/warm-script.js';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir();
});
afterAll(async () => {
  await temp?.cleanup();
});

function sh(sandbox: Sandbox, script: string, env: Record<string, string>): ProcessSpec {
  return { file: 'sh', args: ['-c', script], cwd: temp.path, env: minimalEnvironment(env), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace: temp.path } };
}

// a regression: the namespace's init ended with an unquoted `wait $!` after exporting the run's environment, so a
// tool whose environment set IFS=' 2' (the tool is PID 2) failed with NONZERO_EXIT 2 and no output
for (const mode of ['off', 'auto'] as const) {
  const suite = mode === 'auto' ? describeWithBubblewrap : describe;
  suite(`a waiting launcher's run whose environment sets IFS (sandbox: ${mode})`, () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await createSandbox({ mode });
    });
    afterAll(() => sandbox?.close());

    it('runs and passes the tool its status and output', async () => {
      for (const ifs of [' 2', '2', ' \t\n0123456789']) {
        const ran = await runProcess(sh(sandbox, 'echo ran-with-ifs; exit 0', { IFS: ifs }));
        expect(ran).toMatchObject({ ok: true, exit_code: 0, output: 'ran-with-ifs\n' });
        const failed = await runProcess(sh(sandbox, 'exit 7', { IFS: ifs }));
        expect(failed).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 7 });
      }
    });
  });
}

// a regression: the script set the processes limit with `ulimit -p`, which is that limit in dash only; where /bin/sh
// is bash it failed ("pipe size: cannot modify limit"), so every such run stopped with 125. Both shells run it here.
describe('the run script of a waiting launcher with the processes limit set by rlimit', () => {
  for (const shell of ['dash', 'bash']) {
    it(`runs the program with RLIMIT_NPROC set, in ${shell}, with IFS in its environment`, async () => {
      const limits = { ...resolveToolSandbox(undefined).limits, processes: 37 };
      const script = join(temp.path, `run-${shell}.sh`);
      await writeFile(script, warmScript({ cwd: temp.path, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', IFS: ' 2' }, limits, processes: true, argv: ['cat', '/proc/self/limits'] }));
      const ran = spawnSync(shell, [script], { encoding: 'utf8', env: {} });
      expect(ran.stderr).toBe('');
      expect(ran.status).toBe(0);
      expect(ran.stdout).toMatch(/Max processes\s+37\s+37/);
    });
  }
});
