import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { minimalEnvironment, runProcess } from '../../src/executors/index.js';
import { createSandbox, type LaunchRequest, type Sandbox } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap, giveToNobody } from './support/bubblewrap.js';

// Review T: bubblewrap resolves a bind's source by path when it mounts. A tool that can write a folder holding one
// (another run's tool in a shared folder, a workspace inside another) could swap it for a symlink between the
// gateway's judgement and bubblewrap's mount; the mount check then failed the run (SANDBOX_FAILED). The sources are
// now opened by the gateway and bound by descriptor. The swap is made here at the one moment that matters, every time:
// after the real sandbox planned the run (and opened what it binds), before the runner spawns bubblewrap — by a
// Sandbox that hands the real one's plan on, having swapped the folder first, as the attacker would.

let temp: { path: string; cleanup: () => Promise<void> };
let sandbox: Sandbox | undefined;

/**
 * The real sandbox, with `swap` done after each launch was planned and before the runner spawns its plan. Its runs
 * start cold, as an MCP server's do: a warm one's launcher is spawned within the launch, racing the swap.
 */
function swappingAfterPlan(real: Sandbox, swap: () => Promise<void>): Sandbox {
  return Object.assign(Object.create(real) as Sandbox, {
    launch: async (request: LaunchRequest) => {
      const launch = await real.launch({ ...request, warm: false });
      await swap();
      return launch;
    },
  });
}

/** `folder` moved aside and a symlink to `victim` put in its place: the same path, another folder. */
async function swapForLink(folder: string, victim: string): Promise<void> {
  await rename(folder, `${folder}-judged`);
  await symlink(victim, folder);
}

describeWithBubblewrap('the sources the gateway binds, swapped for a symlink after it opened them', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-bind-fd-');
    await chmod(temp.path, 0o755);
    await mkdir(join(temp.path, 'victim'));
    await writeFile(join(temp.path, 'victim', 'marker'), 'the victim\n');
  });
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
    await temp.cleanup();
  });

  it('the workspace: the tool reads and writes the folder judged, the victim is untouched, and the run is ok', async () => {
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    await writeFile(join(workspace, 'marker'), 'the folder judged\n');
    sandbox = await createSandbox({ mode: 'required', waitingLaunchers: 0 });
    const swapping = swappingAfterPlan(sandbox, () => swapForLink(workspace, join(temp.path, 'victim')));
    // what the tool was given is shown by its own descriptors too: none may be the gateway's, to a host folder
    const script = 'cat marker && echo written > out && ls -l /proc/self/fd/';
    const result = await runProcess({ file: 'sh', args: ['-c', script], cwd: workspace, env: minimalEnvironment(), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox: swapping, workspace } });
    expect(result).toMatchObject({ ok: true, code: null, exit_code: 0 });
    expect(result.output).toMatch(/^the folder judged\n/);
    expect(result.output).not.toContain(temp.path);
    expect(await readFile(join(`${workspace}-judged`, 'out'), 'utf8')).toBe('written\n');
    expect(existsSync(join(temp.path, 'victim', 'out'))).toBe(false);
  });

  it('a declared writable folder outside the workspace: the same', async () => {
    const workspace = join(temp.path, 'ws');
    const shared = join(temp.path, 'shared', 'out');
    await mkdir(workspace);
    await mkdir(shared, { recursive: true });
    await writeFile(join(shared, 'marker'), 'the folder judged\n');
    // a root gateway's tools run as nobody: the folder is theirs to write, as an operator would make it
    if (process.getuid?.() === 0) await giveToNobody(join(temp.path, 'shared'));
    sandbox = await createSandbox({ mode: 'required', waitingLaunchers: 0, ceiling: { writableRoots: [join(temp.path, 'shared')] } });
    const swapping = swappingAfterPlan(sandbox, () => swapForLink(shared, join(temp.path, 'victim')));
    const declared = { filesystem: { write: [shared] } };
    const script = `cat ${shared}/marker && echo written > ${shared}/out`;
    const result = await runProcess({ file: 'sh', args: ['-c', script], cwd: workspace, env: minimalEnvironment(), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox: swapping, workspace, declared } });
    expect(result).toMatchObject({ ok: true, code: null, exit_code: 0, output: 'the folder judged\n' });
    expect(await readFile(join(`${shared}-judged`, 'out'), 'utf8')).toBe('written\n');
    expect(existsSync(join(temp.path, 'victim', 'out'))).toBe(false);
  });
});
