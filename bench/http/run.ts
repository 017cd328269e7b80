// HTTP benchmark: POST /v1/call of a `true` shell tool against a real `hldp serve` process at concurrency 1, 16, 64,
// side by side with the executor called in-process at the same concurrency and in the same sandbox (serve's
// default: bubblewrap where it runs); receipts counted in the database. Each side also reports the time its event
// loop spent inside child_process spawns (the fork of the process, and the child's exec, which libuv waits for): its
// share of the load's wall time, per spawn (bench/http/spawn-timer.cjs, preloaded), and each side's CPU time per call
// and resident size (a fork costs more the larger the process: bench/http/fork-cost.ts).
// Usage: npm run bench:http [-- --requests 2000 --concurrency 1,16,64] [--cpu-prof DIR] [--perf DIR] [--node-arg FLAG ...]
// --cpu-prof DIR: the server writes a V8 CPU profile there when it exits, and this process one of its in-process loads
// alone (in-process-<concurrency>.cpuprofile), with the HTTP loads' windows (http-windows.json) for bench/http/profile-breakdown.ts.
// --perf DIR: Linux perf samples each side's CPU (not wall) time with its call stacks during its loads alone
// (perf-http-<concurrency>.data of the server, perf-in-process-<concurrency>.data of this process; run this process as
// `node --perf-basic-prof --import tsx bench/http/run.ts` for its JavaScript frames' names): bench/http/perf-breakdown.ts.
// --node-arg FLAG (repeatable): a node flag for the server (e.g. --node-arg=--cpu-prof-interval=250).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { Pool } from 'undici';
import { execute } from '../../src/executors/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { scanOnce } from '../../src/scanner/index.js';
import { makeToolYaml, writeFiles } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';
import { spawnService } from '../../test/helpers/spawn-service.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '1,16,64' }, 'cpu-prof': { type: 'string' }, perf: { type: 'string' }, 'node-arg': { type: 'string', multiple: true, default: [] } } });
const total = Number(values.requests);
const levels = values.concurrency.split(',').map(Number);

const temp = await benchTempDir('hldp-bench-http-');
const repo = join(temp.path, 'repo');
await writeFiles(repo, { 'tools/true-tool/TOOL.hdlp': makeToolYaml('true-tool', { executor: 'shell', method: 'run', shell: '{ argv: ["true"] }' }) });
const SPAWN_TIMER = new URL('./spawn-timer.cjs', import.meta.url).pathname;
const spawnFile = join(temp.path, 'spawns.json');
const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '0', HLDP_BENCH_SPAWN_FILE: spawnFile };
const profileDir = values['cpu-prof'];
if (profileDir !== undefined) await mkdir(profileDir, { recursive: true });
const perfDir = values.perf;
if (perfDir !== undefined) await mkdir(perfDir, { recursive: true });
const profileFlags = [...(profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', 'server.cpuprofile']), ...(perfDir === undefined ? [] : ['--perf-basic-prof', '--require', new URL('./perf-map-keeper.cjs', import.meta.url).pathname])];
const server = await spawnService(['serve', '--repo', repo, '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/, ['--require', SPAWN_TIMER, ...profileFlags, ...values['node-arg']]);
const { child, url } = server;
// the same timer in this process, for the in-process side
const ownSpawns = createRequire(import.meta.url)(SPAWN_TIMER) as SpawnTotals;

interface SpawnTotals {
  spawns: number;
  spawn_ms: number;
  loop_active_ms: number;
}

/** The server's spawn totals so far: it writes them on SIGUSR2. */
async function serverSpawns(): Promise<SpawnTotals> {
  await rm(spawnFile, { force: true });
  child.kill('SIGUSR2');
  for (;;) {
    const text = await readFile(spawnFile, 'utf8').catch(() => '');
    if (text !== '') return JSON.parse(text) as SpawnTotals;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const TICKS_PER_MS = 100 / 1000;
/**
 * CPU time (user + system) of a process so far, in ms, from /proc (clock ticks of 10 ms): its own, and its children's
 * that it has waited for (the launchers, bubblewrap and the tools, each counted in its parent's when reaped).
 */
async function cpuMs(pid: number): Promise<{ own: number; children: number; main: number }> {
  const fieldsOf = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const fields = fieldsOf(await readFile(`/proc/${pid}/stat`, 'utf8'));
  // the main thread's alone: the event loop's (the others: the garbage collector's, the compiler's, libuv's pool, workers)
  const main = fieldsOf(await readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
  return { own: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS, children: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_MS, main: (Number(main[11]) + Number(main[12])) / TICKS_PER_MS };
}

/**
 * Runs a load and says how long the measured process's event loop was held inside spawns: per spawn, and as a share
 * of the load's wall time (spawn is synchronous: while the child forks and execs, nothing else of that process
 * runs); the process's CPU time per call, its children's (launchers, bubblewrap, the tool), and for the HTTP side
 * this process's own (the client's: on 2 cores it competes with the server for the same CPUs).
 */
async function withSpawnShare(pid: number, totals: () => Promise<SpawnTotals>, run: () => Promise<Awaited<ReturnType<typeof load>>>) {
  const client = pid !== process.pid;
  const [spawnsBefore, cpuBefore, clientBefore] = [await totals(), await cpuMs(pid), await cpuMs(process.pid)];
  const start = performance.now();
  const result = await run();
  const wall = performance.now() - start;
  const [spawnsAfter, cpuAfter, clientAfter] = [await totals(), await cpuMs(pid), await cpuMs(process.pid)];
  const spawnMs = spawnsAfter.spawn_ms - spawnsBefore.spawn_ms;
  const spawns = spawnsAfter.spawns - spawnsBefore.spawns;
  const perCall = (ms: number): number => +(ms / total).toFixed(2);
  return {
    ...result, spawns, spawn_ms_per_spawn: +(spawnMs / Math.max(1, spawns)).toFixed(3), spawn_share_of_wall: +(spawnMs / wall).toFixed(3),
    cpu_ms_per_call: perCall(cpuAfter.own - cpuBefore.own), main_thread_cpu_ms_per_call: perCall(cpuAfter.main - cpuBefore.main), children_cpu_ms_per_call: perCall(cpuAfter.children - cpuBefore.children),
    // what bounds a side at concurrency 16 on a quiet machine: its one event loop, busy this long a call
    loop_active_ms_per_call: perCall(spawnsAfter.loop_active_ms - spawnsBefore.loop_active_ms),
    ...(client ? { client_cpu_ms_per_call: perCall(clientAfter.own - clientBefore.own) } : {}),
  };
}
const tool = (await scanOnce(repo, { cacheDir: join(temp.path, 'cache') })).tools[0]!;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `count` operations at `concurrency`; returns throughput and latency percentiles. */
async function load(concurrency: number, count: number, operation: () => Promise<boolean>) {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const begin = performance.now();
        if (!(await operation())) errors++;
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { per_second: Math.round(count / seconds), p50_ms: +percentile(latencies, 50).toFixed(2), p99_ms: +percentile(latencies, 99).toFixed(2), errors };
}

const pool = new Pool(url, { connections: Math.max(...levels) });
const body = JSON.stringify({ tool: 'true-tool', params: {} });
let httpCalls = 0;
const viaHttp = async () => {
  httpCalls++;
  const response = await pool.request({ path: '/v1/call', method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const receipt = (await response.body.json()) as { ok?: boolean };
  return response.statusCode === 200 && receipt.ok === true;
};
// the server's own sandbox: the default (bubblewrap where it runs, its limits, a pids cgroup as root)
const context = { shell: { root: temp.path, sandbox: await createSandbox({ mode: 'auto' }) } };
const inProcess = async () => (await execute(tool, {}, context)).ok;

await load(4, 50, viaHttp);
await load(4, 50, inProcess);
const results = [];
const loadBefore = loadavg().map((value) => +value.toFixed(2));
// the monotonic clock in µs, which V8's profiles share: the HTTP loads' windows pick their samples from the server's profile
const microseconds = (): number => Number(process.hrtime.bigint() / 1000n);
const httpWindows: Array<{ concurrency: number; from_us: number; to_us: number }> = [];
const profiler = profileDir === undefined ? undefined : new Session();
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
}
/** Samples process `pid`'s CPU with its call stacks (perf record, 999 Hz) while `run` runs, into `file` under --perf DIR. */
async function perfRecord<T>(pid: number, file: string, run: () => Promise<T>): Promise<T> {
  if (perfDir === undefined) return run();
  const recorder = spawn('perf', ['record', '-e', 'cpu-clock', '-F', '999', '-g', '-p', String(pid), '-o', join(perfDir, file)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  recorder.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  // perf says nothing until it stops; give it a moment to attach
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    return await run();
  } finally {
    const exited = once(recorder, 'exit');
    recorder.kill('SIGINT');
    const [code, signal] = await exited;
    if (code !== 0 && signal !== 'SIGINT') console.error(`perf record of pid ${pid} exited ${code ?? signal}: ${said}`);
  }
}
for (const concurrency of levels) {
  // alternate the two sides so that drift on a shared machine hits both alike
  const from = microseconds();
  const http = await perfRecord(child.pid!, `perf-http-${concurrency}.data`, () => withSpawnShare(child.pid!, serverSpawns, () => load(concurrency, total, viaHttp)));
  httpWindows.push({ concurrency, from_us: from, to_us: microseconds() });
  await profiler?.post('Profiler.start');
  const direct = await perfRecord(process.pid, `perf-in-process-${concurrency}.data`, () => withSpawnShare(process.pid, async () => ({ spawns: ownSpawns.spawns, spawn_ms: ownSpawns.spawn_ms, loop_active_ms: ownSpawns.loop_active_ms }), () => load(concurrency, total, inProcess)));
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    await writeFile(join(profileDir!, `in-process-${concurrency}.cpuprofile`), JSON.stringify(profile));
  }
  const goal = concurrency === 16 ? { goal_throughput_ratio: 1.2 } : {};
  results.push({ concurrency, requests: total, http, in_process_executor: direct, throughput_ratio: +(direct.per_second / http.per_second).toFixed(2), p50_ratio: +(http.p50_ms / direct.p50_ms).toFixed(2), ...goal });
  console.error(JSON.stringify(results.at(-1)));
}
const loadAfter = loadavg().map((value) => +value.toFixed(2));
// what a spawn costs grows with the size of the process that forks (bench/http/fork-cost.ts): both sides' sizes
const rssMib = async (pid: number): Promise<number> => Math.round(Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
const sizes = { server_rss_mib: await rssMib(child.pid!), in_process_rss_mib: await rssMib(process.pid) };
await pool.close();
await server.stop();
if (profileDir !== undefined) await writeFile(join(profileDir, 'http-windows.json'), JSON.stringify(httpWindows));
if (perfDir !== undefined) await writeFile(join(perfDir, 'perf-pids.json'), JSON.stringify({ server: child.pid, in_process: process.pid }));
profiler?.disconnect();
const database = new BetterSqlite3(join(temp.path, 'data', 'receipts.db'), { readonly: true });
const stored = (database.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
database.close();
await temp.cleanup();
context.shell.sandbox.close();
console.log(JSON.stringify({ benchmark: 'http', node: process.version, cpus: cpus().length, load_average_before: loadBefore, load_average_after: loadAfter, receipts_expected: httpCalls, receipts_stored: stored, lost_receipts: httpCalls - stored, ...sizes, results }, null, 2));
