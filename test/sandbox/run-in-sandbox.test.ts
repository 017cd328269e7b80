import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

let temp: { path: string; cleanup: () => Promise<void> };
let workspace: string;
let sandbox: Sandbox;

function sh(script: string, overrides: Partial<ProcessSpec> = {}): ProcessSpec {
  return { file: 'sh', args: ['-c', script], cwd: workspace, env: minimalEnvironment(), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace }, ...overrides };
}

describeWithBubblewrap('runProcess in the bubblewrap sandbox', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    workspace = join(temp.path, 'workspace');
    await mkdir(join(workspace, 'hidden'), { recursive: true });
    sandbox = await createSandbox({ mode: 'auto', hide: [join(workspace, 'hidden')] });
  });
  afterAll(async () => {
    // stop its waiting launchers first: one still setting up makes its mount points in the workspace while it is removed
    sandbox?.close();
    await temp?.cleanup();
  });

  it('runs with no capabilities and no new privileges, in namespaces of its own', async () => {
    const result = await runProcess(sh('grep -E "^(CapEff|NoNewPrivs)" /proc/self/status; hostname'));
    expect(result.output).toMatch(/^CapEff:\s+0+\nNoNewPrivs:\s+1\n/);
    expect(result).toMatchObject({ ok: true, code: null });
  });

  it('reads a tool’s end as the tool’s, not bubblewrap’s: exit codes, and a signal from its status 128+N', async () => {
    expect(await runProcess(sh('exit 3'))).toMatchObject({ code: 'NONZERO_EXIT', exit_code: 3, signal: null });
    expect(await runProcess(sh('kill -KILL $$'))).toMatchObject({ code: 'KILLED_BY_SIGNAL', exit_code: null, signal: 'SIGKILL', error: 'killed by SIGKILL' });
  });

  it('returns SPAWN_FAILED with the raw reason when the program is not there', async () => {
    const result = await runProcess({ ...sh(''), file: 'no-such-program-hldp', args: [] });
    expect(result).toMatchObject({ ok: false, code: 'SPAWN_FAILED', exit_code: null });
    // the launcher's shell execs the program: its own line says it is not there
    expect(result.error).toMatch(/no-such-program-hldp.*(ENOENT|No such file or directory|not found)/);
  });

  it('returns SANDBOX_FAILED with the raw error of what set the run up when it cannot be, and the tool never runs', async () => {
    // a working directory of the host that the sandbox does not show: bubblewrap stops before the tool starts
    const outside = join(temp.path, 'outside');
    await mkdir(outside);
    const result = await runProcess(sh('echo ran', { cwd: outside }));
    expect(result).toMatchObject({ ok: false, code: 'SANDBOX_FAILED', output: '', exit_code: null });
    // the launcher's shell enters the working directory inside the sandbox (bubblewrap itself said: Can't chdir to …)
    expect(result.error).toMatch(new RegExp(`^the sandbox could not be set up, so the tool did not run: hldp-sandbox: \\d+: cd: can't cd to ${outside}$`));
  });

  it('runs in a second sandbox of the same process, whose runs number on from the first’s', async () => {
    // two gateways in one process (or a gateway and its embedded gatekeeper) probe a sandbox each
    const second = await createSandbox({ mode: 'auto' });
    for (let run = 0; run < 3; run += 1) {
      expect(await runProcess(sh('echo first'))).toMatchObject({ ok: true, output: 'first\n' });
      expect(await runProcess(sh('echo second', { isolation: { sandbox: second, workspace } }))).toMatchObject({ ok: true, output: 'second\n' });
    }
  });

  it('hides a guarded folder inside the workspace behind an empty one', async () => {
    const result = await runProcess(sh('echo secret > hidden/x 2>/dev/null; ls -A hidden; echo listed'));
    // a root gateway's tool runs as nobody (sandbox.run_as), whom the empty folder (root's, 0755) does not let write
    expect(result.output).toBe(process.getuid?.() === 0 ? 'listed\n' : 'x\nlisted\n');
    const again = await runProcess(sh('ls -A hidden; echo listed'));
    // each run gets a fresh empty folder: what one wrote is not there for the next, nor on the host
    expect(again.output).toBe('listed\n');
  });
});
