// The first requests after a start, as a server meets them (issue #18): in a fresh process per run, a matcher is
// built and prepared as `hldp serve` prepares it once it listens (`prepareLettingGo`: search index, calibration and
// the warm-up), then every request of the set is asked once, in order: the first pass's p50 and p99 are what the
// first agents wait. The second pass, in the same process, is a warm server's. Wall clock, the process's CPU time
// (all its threads: the compiler's and the collector's too) and the main thread's own CPU time side by side (on a
// loaded machine the wall clock also waits for a core; a quiet one's is about the main thread's time plus whatever
// the other threads take of its core). `--sizes` replicates BFCL's tools under new names.
// `--profile PREFIX` (with one size and one run) records a CPU profile of both passes, PREFIX.cpuprofile, and the
// windows of each pass's slowest 1% of requests (by the main thread's CPU time), PREFIX.tail.json:
// `npx tsx bench/scan/stall-report.ts PREFIX.cpuprofile PREFIX.tail.json` says what ran in each.
// Usage: npx tsx bench/match/first-pass.ts [--sizes 3148,100000] [--runs 3] [--profile PREFIX]
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { createMatcher } from '../../src/matcher/index.js';
import { readBenchData } from './bench-data.js';
import { replicate } from './latency.js';
import { percentile } from './metrics.js';
import { asIndex } from './systems.js';
import { threadCpuClock } from './thread-cpu.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

/** The goals of issue #18 each row is printed beside. */
const GOALS = { first_pass_p99_ms: '< 1 ms from the first request (3,148 tools)', second_pass_p99_ms: '< 2 ms (100,000 tools, a warm server)' };

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '3148' },
    runs: { type: 'string', default: '3' },
    child: { type: 'boolean', default: false },
    size: { type: 'string' },
    profile: { type: 'string' },
  },
});
const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

interface ChildReport {
  tools: number;
  prepare_ms: number;
  heap_mb: number;
  first_pass: { p50: number; p99: number; max: number };
  second_pass: { p50: number; p99: number; max: number };
  /** the same in CPU time of the process (all its threads): what a quiet machine would see, where the wall clock waits for a core */
  first_pass_cpu: { p50: number; p99: number; max: number };
  second_pass_cpu: { p50: number; p99: number; max: number };
  /** the main thread's CPU time alone (Linux; absent where it cannot be read) */
  first_pass_thread?: { p50: number; p99: number; max: number };
  second_pass_thread?: { p50: number; p99: number; max: number };
  /** the process's CPU time while the matcher was prepared */
  prepare_cpu_ms: number;
}

async function child(size: number): Promise<ChildReport> {
  const data = await readBenchData(DEFAULT_DATA);
  const { world } = await prepareWorld(data);
  const base = [...world.toolsById.values()];
  const tools = size > base.length ? replicate(base, size) : base;
  const cpu = (): number => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  const thread = await threadCpuClock();
  const started = performance.now();
  const startedCpu = cpu();
  const matcher = await createMatcher(asIndex(tools)).prepareLettingGo();
  const prepareMs = performance.now() - started;
  const prepareCpuMs = cpu() - startedCpu;
  const session = values.profile ? await startProfile() : undefined;
  const windows: Array<{ pass: number; from_us: number; to_us: number; cpu_ms: number; wall_ms: number; thread_ms: number; request: string }> = [];
  const passes = [0, 1].map((pass) => {
    const wall: number[] = [];
    const used: number[] = [];
    const own: number[] = [];
    for (const query of data.queries) {
      const clock = process.hrtime.bigint();
      const startThread = thread?.() ?? 0;
      const start = performance.now();
      const startCpu = cpu();
      matcher.matchIntent(query.text);
      used.push(cpu() - startCpu);
      wall.push(performance.now() - start);
      own.push((thread?.() ?? 0) - startThread);
      if (session) windows.push({ pass, from_us: Number(clock / 1000n), to_us: Number(process.hrtime.bigint() / 1000n), cpu_ms: used.at(-1)!, wall_ms: wall.at(-1)!, thread_ms: own.at(-1)!, request: query.text });
    }
    return { wall, used, own };
  });
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    await writeFile(`${values.profile}.cpuprofile`, JSON.stringify(profile));
    // the slowest 1% of each pass, by the main thread's CPU time where it is read (the profile's thread: on a loaded
    // machine the slowest by wall time are those that waited for a core), else by wall time
    const tail = [0, 1].flatMap((pass) => {
      const list = windows.filter((window) => window.pass === pass).sort((a, b) => (thread ? b.thread_ms - a.thread_ms : b.wall_ms - a.wall_ms));
      return list.slice(0, Math.ceil(list.length / 100));
    });
    await writeFile(`${values.profile}.tail.json`, JSON.stringify(tail, null, 1));
  }
  const summary = (times: number[]) => ({ p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(Math.max(...times)) });
  return {
    tools: tools.length, prepare_ms: Math.round(prepareMs), heap_mb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    first_pass: summary(passes[0]!.wall), second_pass: summary(passes[1]!.wall), first_pass_cpu: summary(passes[0]!.used), second_pass_cpu: summary(passes[1]!.used),
    ...(thread ? { first_pass_thread: summary(passes[0]!.own), second_pass_thread: summary(passes[1]!.own) } : {}),
    prepare_cpu_ms: Math.round(prepareCpuMs),
  };
}

async function startProfile() {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return session;
}

async function main(): Promise<void> {
  if (values.child) {
    process.stdout.write(JSON.stringify(await child(Number(values.size))));
    return;
  }
  const execFileAsync = promisify(execFile);
  const script = fileURLToPath(import.meta.url);
  const before = loadavg().map((value) => round(value, 2));
  const results: Record<string, unknown> = {};
  for (const size of values.sizes.split(',').map(Number)) {
    const runs: ChildReport[] = [];
    for (let run = 0; run < Number(values.runs); run++) {
      const profile = values.profile ? ['--profile', values.profile] : [];
      const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', '--disable-warning=ExperimentalWarning', script, '--child', '--size', String(size), ...profile], { maxBuffer: 1 << 24 });
      runs.push(JSON.parse(stdout) as ChildReport);
      process.stderr.write(`${size}: ${stdout}\n`);
    }
    const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    const summarise = (list: ChildReport[]) => ({
      tools: list[0]!.tools,
      prepare_ms_median: median(list.map((report) => report.prepare_ms)),
      heap_mb_median: median(list.map((report) => report.heap_mb)),
      first_pass_p50_ms_median: median(list.map((report) => report.first_pass.p50)),
      first_pass_p99_ms_median: median(list.map((report) => report.first_pass.p99)),
      second_pass_p99_ms_median: median(list.map((report) => report.second_pass.p99)),
      first_pass_cpu_p50_ms_median: median(list.map((report) => report.first_pass_cpu.p50)),
      first_pass_cpu_p99_ms_median: median(list.map((report) => report.first_pass_cpu.p99)),
      second_pass_cpu_p99_ms_median: median(list.map((report) => report.second_pass_cpu.p99)),
      ...(list[0]!.first_pass_thread
        ? {
            first_pass_thread_p99_ms_median: median(list.map((report) => report.first_pass_thread!.p99)),
            second_pass_thread_p99_ms_median: median(list.map((report) => report.second_pass_thread!.p99)),
          }
        : {}),
      prepare_cpu_ms_median: median(list.map((report) => report.prepare_cpu_ms)),
    });
    results[String(size)] = { ...summarise(runs), runs: runs.length, goals: GOALS };
  }
  process.stdout.write(`${JSON.stringify({ benchmark: 'first requests after a start', load_average: { before, after: loadavg().map((value) => round(value, 2)) }, results }, null, 2)}\n`);
}

await main();
