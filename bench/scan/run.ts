// Scan benchmark, side by side in one run: a cold `hldp scan` of a remote over smart HTTP vs the baseline
// `git clone --depth 1` + reading the files with the CLI (`hldp scan` of the checkout), and vs clone + cat (the floor);
// warm start from the cache; an incremental rescan after a one-file commit; `hldp serve` ready from a warm cache;
// `hldp call` of one tool from a warm cache beside the same call in a registry of 5 tools. Each row beside its goal
// (issue #18). The repositories are generated (git fast-import), never committed.
// Every run's floor and cold CLI scan are printed as a pair, with their ratio and the spread of the ratios, and beside
// the floor what may make it swing (7.6-24 s between quiet runs at 100,000 tools, 2026-12-06): the CPU of its
// processes and the git server's (children's CPU), the machine's I/O wait meanwhile, and the dirty and writeback pages
// the steps before it left. `sync` runs before each timed step (not timed), so that none starts under the writeback
// of the files the step before wrote or removed; `--no-sync` leaves it out.
// Usage: npm run bench:scan [-- --sizes 1000,10000,100000 --runs 3 --no-sync]
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { Scanner } from '../../src/scanner/index.js';
import { git, initRepository } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';
import { startGitHttpServer } from '../../test/helpers/git-http-server.js';
import { HLDP_BIN } from '../../test/helpers/run-cli.js';
import { generateRepository, toolName } from './generate-repository.js';
import { toolYaml } from './tool-yaml.js';

const execFileAsync = promisify(execFile);
const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000,10000' }, runs: { type: 'string', default: '3' }, 'no-sync': { type: 'boolean', default: false } } });
const syncFirst = !values['no-sync'];
const sizes = values.sizes.split(',').map(Number);
const runs = Number(values.runs);
const loadBefore = loadavg().map((value) => +value.toFixed(1));

/** Issue #18's goals, printed beside the figures they judge. */
const GOALS = {
  cold_cli_over_floor: '≤ 2 (100,000 tools: ≤ 2× git clone --depth 1 + read)',
  cold_cli_max_rss_mb: '≤ 300 (100,000 tools)',
  warm_start_in_process_ms: '≤ 100 (10,000 tools)',
  incremental_rescan_ms: '≤ 100 (10,000 tools)',
  serve_ready_from_warm_cache_ms: '≤ 1,000 (100,000 tools)',
  serve_ready_rss_mb: '≤ 300 (100,000 tools)',
  call_extra_over_5_tools_ms: '≤ 100 (10,000 tools, whole CLI processes, medians)',
};

// the CLI under test, with its peak RSS reported on stderr at exit (the kernel's maxrss of that process)
const MAX_RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nhldp-bench-maxrss-kb='+process.resourceUsage().maxRSS+'\\n'))`;

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string; maxRssMb: number; code: number }> {
  const start = performance.now();
  const done = await execFileAsync(process.execPath, ['--import', MAX_RSS_HOOK, HLDP_BIN, ...args], { env: { ...process.env, ...env }, maxBuffer: 1 << 30 })
    .then((output) => ({ ...output, code: 0 }))
    .catch((error: { stdout: string; stderr: string; code: number }) => ({ stdout: error.stdout, stderr: error.stderr, code: error.code }));
  const ms = performance.now() - start;
  const kb = Number(/hldp-bench-maxrss-kb=(\d+)/.exec(done.stderr)?.[1] ?? NaN);
  return { ms, stdout: done.stdout, maxRssMb: Math.round(kb / 1024), code: done.code };
}

/** `hldp serve` on port 0 until it says it is serving: the time, and its resident memory then (VmRSS) and at its peak (VmHWM). */
async function serveReady(repo: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; rssMb: number; peakMb: number }> {
  const start = performance.now();
  const child = spawn(process.execPath, [HLDP_BIN, 'serve', '--repo', repo, '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/hldp: serving \d+ tools/.test(stderr)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`hldp serve exited ${code}: ${stderr}`)));
    });
    const ms = performance.now() - start;
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
    const field = (name: string): number => Math.round(Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024);
    return { ms, rssMb: field('VmRSS'), peakMb: field('VmHWM') };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** What the machine says now: dirty and writeback pages (kB), its I/O wait (ms, all cores), the CPU of this process's children waited for (ms: the floor's git and cat, and the git server's http-backend and pack-objects). */
function machine(): { dirtyKb: number; writebackKb: number; iowaitMs: number; childrenCpuMs: number } {
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(meminfo)?.[1] ?? NaN);
  // USER_HZ is 100 on Linux
  const iowait = Number(readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)[5]) * 10;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { dirtyKb: kb('Dirty'), writebackKb: kb('Writeback'), iowaitMs: iowait, childrenCpuMs: (Number(fields[13]) + Number(fields[14])) * 10 };
}

/** `sync`, untimed, so that the next step does not start under the writeback of what the one before wrote or removed. */
async function settle(): Promise<number> {
  if (!syncFirst) return 0;
  const start = performance.now();
  await execFileAsync('sync');
  return Math.round(performance.now() - start);
}

/** Times the source's snapshot (head check, fetch, object reads): the part that talks to the git server. */
function timeSnapshots(scanner: Scanner): { total: number } {
  const timing = { total: 0 };
  const source = scanner.source as { snapshot: () => Promise<unknown> };
  const snapshot = source.snapshot.bind(source);
  source.snapshot = async () => {
    const start = performance.now();
    try {
      return await snapshot();
    } finally {
      timing.total += performance.now() - start;
    }
  };
  return timing;
}

async function time<T>(run: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await run();
  return [performance.now() - start, value];
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function benchmark(size: number) {
  const temp = await benchTempDir('hldp-bench-scan-');
  const served = join(temp.path, 'served');
  const work = join(temp.path, 'work');
  await generateRepository(work, size);
  await initRepository(join(served, 'tools.git'), { bare: true });
  await git(work, 'push', '-q', join(served, 'tools.git'), 'main');
  const server = await startGitHttpServer({ projectRoot: served });
  const url = `${server.url}/tools.git`;

  const baseline: number[] = [];
  const floor: number[] = [];
  const coldCli: number[] = [];
  const coldCliRss: number[] = [];
  const coldInProcess: number[] = [];
  const pairs: Array<Record<string, number>> = [];
  for (let run = 0; run < runs; run++) {
    // interleaved, so that drift on a shared machine hits both sides alike
    const clone = join(temp.path, `clone-${run}`);
    const syncBeforeFloorMs = await settle();
    const before = machine();
    let cloneMs = 0;
    const [floorMs] = await time(async () => {
      [cloneMs] = await time(() => execFileAsync('git', ['clone', '-q', '--depth', '1', '--single-branch', '--no-tags', url, clone]));
      await execFileAsync('sh', ['-c', 'find tools -name TOOL.hdlp -exec cat {} + | wc -c'], { cwd: clone, maxBuffer: 1 << 30 });
    });
    const after = machine();
    floor.push(floorMs);
    await rm(clone, { recursive: true, force: true });
    const baselineCache = join(temp.path, `cache-baseline-${run}`);
    await settle();
    const [baselineMs] = await time(async () => {
      await execFileAsync('git', ['clone', '-q', '--depth', '1', '--single-branch', '--no-tags', url, clone]);
      await execFileAsync(process.execPath, [HLDP_BIN, 'scan', '--repo', clone, '--json'], { env: { ...process.env, HLDP_CACHE_DIR: baselineCache }, maxBuffer: 1 << 30 });
    });
    baseline.push(baselineMs);
    await rm(clone, { recursive: true, force: true });
    await rm(baselineCache, { recursive: true, force: true });
    const cacheDir = join(temp.path, `cache-cli-${run}`);
    const syncBeforeCliMs = await settle();
    const cliBefore = machine();
    const output = await cli(['scan', '--repo', url, '--json'], { HLDP_CACHE_DIR: cacheDir });
    const cliAfter = machine();
    const scanned = JSON.parse(output.stdout) as { tools: unknown[]; errors: unknown[] };
    if (scanned.tools.length !== size || scanned.errors.length) throw new Error(`cold CLI scan found ${scanned.tools.length} tools, ${scanned.errors.length} errors`);
    coldCli.push(output.ms);
    coldCliRss.push(output.maxRssMb);
    pairs.push({
      run,
      floor_ms: Math.round(floorMs),
      cold_cli_ms: Math.round(output.ms),
      cold_cli_over_floor: +(output.ms / floorMs).toFixed(2),
      cold_cli_max_rss_mb: output.maxRssMb,
      floor_clone_ms: Math.round(cloneMs),
      floor_cat_ms: Math.round(floorMs - cloneMs),
      floor_children_cpu_ms: after.childrenCpuMs - before.childrenCpuMs,
      floor_machine_iowait_ms: after.iowaitMs - before.iowaitMs,
      floor_dirty_kb_before: before.dirtyKb,
      floor_writeback_kb_before: before.writebackKb,
      cold_cli_machine_iowait_ms: cliAfter.iowaitMs - cliBefore.iowaitMs,
      cold_cli_dirty_kb_before: cliBefore.dirtyKb,
      sync_before_floor_ms: syncBeforeFloorMs,
      sync_before_cold_cli_ms: syncBeforeCliMs,
      load_1min: +loadavg()[0]!.toFixed(1),
    });
    console.error(JSON.stringify({ tools: size, ...pairs.at(-1) }));
    await rm(cacheDir, { recursive: true, force: true });
    const inProcessCache = join(temp.path, `cache-${run}`);
    const [inProcessMs] = await time(async () => {
      const scanner = new Scanner({ repo: url, cacheDir: inProcessCache });
      await scanner.scan();
      await scanner.flush();
    });
    coldInProcess.push(inProcessMs);
    if (run < runs - 1) await rm(inProcessCache, { recursive: true, force: true });
  }

  // warm start: a new Scanner (as after a restart) over the cache the last cold run left, remote unchanged
  const cacheDir = join(temp.path, `cache-${runs - 1}`);
  const warm: number[] = [];
  const warmRemote: number[] = [];
  const warmCli: number[] = [];
  for (let run = 0; run < runs + 2; run++) {
    const restarted = new Scanner({ repo: url, cacheDir });
    const remote = timeSnapshots(restarted);
    const [ms, index] = await time(() => restarted.scan());
    if (index.tools.length !== size) throw new Error('warm start lost tools');
    warm.push(ms);
    warmRemote.push(remote.total);
    const [cliMs] = await time(() => execFileAsync(process.execPath, [HLDP_BIN, 'scan', '--repo', url], { env: { ...process.env, HLDP_CACHE_DIR: cacheDir } }));
    warmCli.push(cliMs);
  }

  // incremental: a running scanner sees a one-file commit
  const scanner = new Scanner({ repo: url, cacheDir });
  await scanner.scan();
  const incremental: number[] = [];
  const incrementalRemote: number[] = [];
  const fetches = timeSnapshots(scanner);
  for (let run = 0; run < runs + 2; run++) {
    fetches.total = 0;
    await writeFile(join(work, 'tools', toolName(0), 'TOOL.hdlp'), toolYaml(toolName(0), run + 1));
    await git(work, 'commit', '-q', '-am', `change ${run}`);
    await git(work, 'push', '-q', join(served, 'tools.git'), 'main');
    const [ms, index] = await time(() => scanner.scan());
    if (!index.tools[0]?.intent.includes(`variant ${run + 1}`)) throw new Error('incremental rescan missed the change');
    incremental.push(ms);
    incrementalRemote.push(fetches.total);
    await scanner.flush();
  }
  await server.close();

  // a server from a warm cache (the scan's and the search index's), and `hldp call` of one tool beside the
  // same call in a registry of 5 tools: whole processes, over local repositories
  const small = join(temp.path, 'small');
  await generateRepository(small, 5);
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache-local'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
  await serveReady(work, env);
  const ready: Array<{ ms: number; rssMb: number; peakMb: number }> = [];
  for (let run = 0; run < runs; run++) ready.push(await serveReady(work, env));
  const call = (repo: string) => cli(['call', toolName(1), '--repo', repo, '--params', '{"target":"x"}'], env);
  await call(small);
  await call(work);
  const calls: number[] = [];
  const smallCalls: number[] = [];
  for (let run = 0; run < runs + 2; run++) {
    // alternated, so that drift hits both alike
    smallCalls.push((await call(small)).ms);
    calls.push((await call(work)).ms);
  }
  await temp.cleanup();
  const result = {
    tools: size,
    load_average_before_and_after: [loadBefore, loadavg().map((value) => +value.toFixed(1))],
    baseline_git_clone_depth1_plus_hldp_scan_of_checkout_ms: Math.round(median(baseline)),
    floor_git_clone_depth1_plus_cat_ms: Math.round(median(floor)),
    cold_scan_cli_ms: Math.round(median(coldCli)),
    cold_scan_in_process_ms: Math.round(median(coldInProcess)),
    cold_cli_over_baseline: +(median(coldCli) / median(baseline)).toFixed(2),
    cold_cli_over_floor: +(median(coldCli) / median(floor)).toFixed(2),
    cold_cli_over_floor_spread: [Math.min(...pairs.map((pair) => pair.cold_cli_over_floor!)), Math.max(...pairs.map((pair) => pair.cold_cli_over_floor!))],
    floor_ms_spread: [Math.round(Math.min(...floor)), Math.round(Math.max(...floor))],
    cold_cli_ms_spread: [Math.round(Math.min(...coldCli)), Math.round(Math.max(...coldCli))],
    sync_before_each_step: syncFirst,
    runs_side_by_side: pairs,
    cold_cli_max_rss_mb: median(coldCliRss),
    warm_start_in_process_ms: +median(warm).toFixed(1),
    warm_start_of_which_remote_head_check_ms: +median(warmRemote).toFixed(1),
    warm_start_cli_process_ms: Math.round(median(warmCli)),
    incremental_rescan_ms: +median(incremental).toFixed(1),
    incremental_of_which_fetch_ms: +median(incrementalRemote).toFixed(1),
    serve_ready_from_warm_cache_ms: Math.round(median(ready.map((run) => run.ms))),
    serve_ready_rss_mb: median(ready.map((run) => run.rssMb)),
    serve_ready_peak_rss_mb: median(ready.map((run) => run.peakMb)),
    call_ms: Math.round(median(calls)),
    call_5_tools_ms: Math.round(median(smallCalls)),
    call_extra_over_5_tools_ms: Math.round(median(calls) - median(smallCalls)),
    goals: GOALS,
  };
  console.error(JSON.stringify(result));
  return result;
}

const results = [];
for (const size of sizes) results.push(await benchmark(size));
console.log(JSON.stringify({ benchmark: 'scan', runs, node: process.version, results }, null, 2));
