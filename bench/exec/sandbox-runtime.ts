// The measurement behind the README's choice of bubblewrap over @anthropic-ai/sandbox-runtime; prints one JSON document.
//   npx tsx bench/exec/sandbox-runtime.ts [--version 0.0.83]
// It installs the package into a temporary folder with npm (it is no dependency of this project), and needs what the
// package itself needs on Linux: bwrap, rg (ripgrep) and socat (apt-get install bubblewrap ripgrep socat). Side by
// side in one run, `true` through: a bare spawn; the package's wrapped command (its own `wrapWithSandbox` time
// counted apart); and our sandbox (createSandbox + runProcess, default configuration).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { minimalEnvironment, runProcess } from '../../src/executors/index.js';
import { createSandbox } from '../../src/sandbox/index.js';

const { values } = parseArgs({ options: { version: { type: 'string', default: '0.0.83' }, runs: { type: 'string', default: '50' } } });
const runs = Number(values.runs);
const median = (numbers: number[]): number => [...numbers].sort((a, b) => a - b)[numbers.length >> 1]!;
const round = (value: number): number => Number(value.toFixed(2));

function spawnAndWait(command: string, shell: boolean, cwd: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [], { shell, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
}

const folder = await mkdtemp(join(tmpdir(), 'hldp-srt-eval-'));
try {
  await writeFile(join(folder, 'package.json'), '{"private": true}');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', `@anthropic-ai/sandbox-runtime@${values.version}`], { cwd: folder, stdio: 'ignore' });
  const runtime = (await import(pathToFileURL(join(folder, 'node_modules/@anthropic-ai/sandbox-runtime/dist/index.js')).href)) as {
    SandboxManager: { initialize(config: object): Promise<void>; wrapWithSandbox(command: string): Promise<string>; reset(): Promise<void> };
  };
  const { SandboxManager } = runtime;
  const initializeStart = performance.now();
  await SandboxManager.initialize({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowWrite: [folder], denyWrite: [] } });
  const initializeMs = performance.now() - initializeStart;
  const ours = await createSandbox({ mode: 'auto' });
  const times = { bare: [] as number[], runtime_wrap: [] as number[], runtime_run: [] as number[], ours: [] as number[] };
  for (let run = 0; run < runs; run += 1) {
    let start = performance.now();
    await spawnAndWait('true', false, folder);
    times.bare.push(performance.now() - start);
    start = performance.now();
    const wrapped = await SandboxManager.wrapWithSandbox('true');
    times.runtime_wrap.push(performance.now() - start);
    start = performance.now();
    if ((await spawnAndWait(wrapped, true, folder)) !== 0) throw new Error('true failed in the sandbox-runtime');
    times.runtime_run.push(performance.now() - start);
    start = performance.now();
    const result = await runProcess({ file: 'true', args: [], cwd: folder, env: minimalEnvironment(), timeoutMs: 30_000, maxOutputBytes: 65_536, isolation: { sandbox: ours, workspace: folder } });
    if (!result.ok) throw new Error(`true failed in our sandbox: ${result.error}`);
    times.ours.push(performance.now() - start);
  }
  // a daemon left by the wrapped command: is it gone when the command returns?
  const marker = `${3000 + (process.pid % 600)}.${Date.now() % 100_000}`;
  await spawnAndWait(await SandboxManager.wrapWithSandbox(`setsid sleep ${marker} >/dev/null 2>&1 & sleep 0.3`), true, folder);
  const daemonSurvived = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').some((line) => line.trim() === `sleep ${marker}`);
  await SandboxManager.reset();
  const bare = median(times.bare);
  const wrapPlusRun = median(times.runtime_wrap.map((wrap, index) => wrap + times.runtime_run[index]!));
  const report = {
    benchmark: 'sandbox-runtime evaluation',
    package: `@anthropic-ai/sandbox-runtime@${values.version}`,
    node: process.version,
    cpus: cpus().length,
    runs,
    load_average_before: loadavg().map(round),
    runtime_initialize_ms: round(initializeMs),
    bare_spawn_median_ms: round(bare),
    runtime_wrap_median_ms: round(median(times.runtime_wrap)),
    runtime_run_median_ms: round(median(times.runtime_run)),
    runtime_wrap_plus_run_median_ms: round(wrapPlusRun),
    runtime_ratio: round(wrapPlusRun / bare),
    ours_median_ms: round(median(times.ours)),
    ours_ratio: round(median(times.ours) / bare),
    runtime_setsid_child_survived: daemonSurvived,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await rm(folder, { recursive: true, force: true });
}
