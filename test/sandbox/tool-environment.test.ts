import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalEnvironment, runProcess } from '../../src/executors/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { configuredGateways } from '../helpers/configured-gateways.js';
import { runCli } from '../helpers/run-cli.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { describeNeeding, giveToNobody, ROOT, type Part } from './support/bubblewrap.js';

// Review O, O1 and O2: a tool's `shell.env` reached the programs that set its run up. A waiting launcher's shell
// exported it, then exec'd setpriv as root with CAP_DAC_READ_SEARCH (O1: LD_PRELOAD ran code there, which opened
// any host file by its handle); a cold run (any env name that is not an identifier) spawned the host's sh and
// bubblewrap with it, as root with every capability (O2). Real root `hldp serve`, a real preload built here with cc:
// every process that loads it reports its ids and capabilities; all must be the tool's: uid 65534, no capabilities.
const compiler = ['cc', 'gcc'].find((name) => spawnSync(name, ['--version']).status === 0);
const token = 'admin-token-tool-env-0123456789';
const SOURCE = fileURLToPath(new URL('./fixtures/report-preload.c', import.meta.url));

let temp: { path: string; cleanup: () => Promise<void> };
const gateways = configuredGateways(() => temp.path, token);
const { serve, call } = gateways;
const workspace = () => join(temp.path, 'workspace');
const library = () => join(workspace(), 'report.so');
const report = () => join(workspace(), 'report.log');

type Loaded = Array<{ program: string; uid: number; euid: number; capabilities: string }>;

/** The same for one run of `true` started by the sandbox directly, with `env` added to its environment. */
async function loadedByRun(sandbox: Sandbox, env: Record<string, string>): Promise<Loaded> {
  await rm(report(), { force: true });
  const result = await runProcess({ file: 'true', args: [], cwd: workspace(), env: minimalEnvironment(env), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace: workspace() } });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return readReport();
}

async function readReport(): Promise<Loaded> {
  const text = await readFile(report(), 'utf8').catch(() => '');
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [program, uid, euid, capabilities] = line.split(' ');
      return { program: program!, uid: Number(uid), euid: Number(euid), capabilities: capabilities! };
    });
}

const COMPILER: Part = { part: 'a C compiler (cc or gcc)', present: compiler !== undefined, provided: '.ci/run installs gcc where neither is found' };

describeNeeding([ROOT, COMPILER], 'a tool’s environment reaches the tool only', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await mkdir(workspace());
    const built = spawnSync(compiler!, ['-shared', '-fPIC', '-o', library(), `-DREPORT="${report()}"`, SOURCE], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`the preload does not build: ${built.stderr}`);
    await chmod(library(), 0o644);
    // the workspace is nobody's, as run_as needs; the report is written by whoever loads the preload
    await giveToNobody(workspace());
    await chmod(workspace(), 0o777);
    const tool = (name: string, env: string) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [true], env: ${env} }` });
    await writeFiles(join(temp.path, 'repo'), {
      // a waiting launcher's run
      'tools/warm/TOOL.hdlp': tool('warm', `{ LD_PRELOAD: "${library()}" }`),
      // a name a shell cannot export sends the run down the cold path
      'tools/cold/TOOL.hdlp': tool('cold', `{ LD_PRELOAD: "${library()}", "X-Y": "1" }`),
    });
  });
  afterAll(async () => {
    await gateways.stopAll();
    await temp?.cleanup();
  });

  describe.each([
    ['required', { sandbox: { mode: 'required' } }],
    ['off', { sandbox: 'off' }],
  ])('when the sandbox is %s', (name, config) => {
    let gateway: ServiceProcess;
    beforeAll(async () => {
      gateway = await serve(name, config);
    });

    it.each(['warm', 'cold'])('leaves a %s tool that sets LD_PRELOAD out of its index, and nothing loads it', async (tool) => {
      await rm(report(), { force: true });
      // not in the index: the call is refused as one to an unknown tool
      expect((await call(gateway, tool)).ok).not.toBe(true);
      const validated = await runCli(['validate', join(temp.path, 'repo')]);
      expect(`${validated.stdout}${validated.stderr}`).toMatch(new RegExp(`tools/${tool}/TOOL.hdlp:\\d+:\\d+: .*'shell.env.LD_PRELOAD' may not be set by a tool, even to a fixed value`));
      expect(await readReport()).toEqual([]);
    });
  });

  // the launch itself, whatever let the variable through (the scan refuses it in a definition)
  describe.each(['required', 'off'] as const)('when a run of a sandbox %s gets LD_PRELOAD', (mode) => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await createSandbox({ mode });
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    it.each([
      ['warm', {}],
      ['cold', { 'X-Y': '1' }],
    ])('loads it into the tool alone on a %s run', async (_path, extra) => {
      for (let run = 0; run < 3; run++) expectToolOnly(await loadedByRun(sandbox, { LD_PRELOAD: library(), ...extra }));
    });
  });
});

function expectToolOnly(loaded: Loaded): void {
  expect(loaded.map((process) => process.program)).toContain('/usr/bin/true');
  for (const process of loaded) expect(process, JSON.stringify(loaded)).toMatchObject({ uid: 65534, euid: 65534, capabilities: '0' });
}
