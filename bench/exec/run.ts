// Benchmarks of the shell executor's constraint runner; prints one JSON document.
//   npm run bench:exec
// 1. overhead: `true` through execute() vs a bare child_process.spawn, interleaved, medians and their ratio (target ≤ 1.5×)
// 2. memory: peak RSS growth while a tool prints 1 GiB under a 64 KiB cap (target < 64 MiB)
// 3. kill: time from the deadline to the whole process tree gone, with and without children ignoring SIGTERM (target < 200 ms)
import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDefinition } from '../../src/core/index.js';
import { execute, minimalEnvironment, type ExecutionContext } from '../../src/executors/index.js';

const OVERHEAD_RUNS = Number(process.env.BENCH_EXEC_RUNS ?? 300);
const KILL_RUNS = Number(process.env.BENCH_EXEC_KILL_RUNS ?? 10);

function tool(shell: ToolDefinition['shell'], constraints: Partial<ToolDefinition['constraints']> = {}): ToolDefinition {
  return {
    name: 'bench',
    display: 'bench',
    intent: 'benchmark',
    method: 'run',
    executor: 'shell',
    params_schema: { type: 'object', properties: {} },
    constraints: { timeout_ms: 30_000, max_output_bytes: 65_536, require_confirm: false, ...constraints },
    author: 'bench',
    created: '2026-05-31',
    why: 'numbers',
    aliases: [],
    examples: [],
    shell,
    source: { path: 'tools/bench/TOOL.hdlp', oid: '0' },
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

function bareSpawn(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('true', [], { cwd, env: minimalEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function overhead(context: ExecutionContext, root: string) {
  const definition = tool({ argv: ['true'] });
  const executor: number[] = [];
  const bare: number[] = [];
  for (let warm = 0; warm < 20; warm += 1) {
    await execute(definition, {}, context);
    await bareSpawn(root);
  }
  for (let run = 0; run < OVERHEAD_RUNS; run += 1) {
    // alternate which goes first, so that neither always meets a warmer system
    const order = run % 2 === 0 ? ['executor', 'bare'] : ['bare', 'executor'];
    for (const which of order) {
      const start = performance.now();
      if (which === 'executor') {
        const result = await execute(definition, {}, context);
        if (!result.ok) throw new Error(`true failed: ${result.error}`);
        executor.push(performance.now() - start);
      } else {
        await bareSpawn(root);
        bare.push(performance.now() - start);
      }
    }
  }
  const executorMedian = median(executor);
  const bareMedian = median(bare);
  // each run's pair met the same load: the median of their ratios resists drift in the machine's load
  const pairedRatio = median(executor.map((time, run) => time / bare[run]!));
  return {
    runs: OVERHEAD_RUNS,
    executor_median_ms: round(executorMedian),
    bare_spawn_median_ms: round(bareMedian),
    ratio: round(executorMedian / bareMedian),
    paired_ratio_median: round(pairedRatio),
    target_ratio: 1.5,
  };
}

async function memory(context: ExecutionContext) {
  const definition = tool({ argv: ['head', '-c', '1073741824', '/dev/zero'] }, { max_output_bytes: 65_536, timeout_ms: 120_000 });
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const start = performance.now();
  const result = await execute(definition, {}, context);
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    output_bytes: result.output_bytes,
    cut_bytes: result.cut_bytes,
    kept_output_chars: result.output.length,
    seconds: round(seconds),
    throughput_mib_s: round(result.output_bytes / 1024 / 1024 / seconds, 1),
    baseline_rss_mib: round(baseline / 1024 / 1024, 1),
    peak_rss_growth_mib: round((peak - baseline) / 1024 / 1024, 1),
    target_growth_mib: 64,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function killLatency(context: ExecutionContext, ignoreTerm: boolean) {
  const timeout = 200;
  // the script prints the pids of two grandchildren, then waits on them past the deadline
  const script = `${ignoreTerm ? 'trap "" TERM; ' : ''}sleep 60 & echo $!; sleep 60 & echo $!; wait`;
  const latencies: number[] = [];
  for (let run = 0; run < KILL_RUNS; run += 1) {
    const start = performance.now();
    const result = await execute(tool({ script }, { timeout_ms: timeout }), {}, context);
    const pids = result.output.trim().split('\n').map(Number);
    if (!result.timed_out || pids.length !== 2) throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    while (pids.some(alive)) await new Promise((resolve) => setImmediate(resolve));
    latencies.push(performance.now() - (start + timeout));
  }
  return { runs: KILL_RUNS, children_ignore_sigterm: ignoreTerm, median_ms: round(median(latencies), 1), max_ms: round(Math.max(...latencies), 1), target_ms: 200 };
}

const root = await realpath(await mkdtemp(join(tmpdir(), 'hldp-bench-exec-')));
try {
  const context: ExecutionContext = { shell: { root } };
  const report = {
    benchmark: 'exec',
    node: process.version,
    cpus: cpus().length,
    load_average_before: loadavg().map((value) => round(value, 2)),
    overhead: await overhead(context, root),
    memory_1gib_under_64kib_cap: await memory(context),
    deadline_to_tree_gone: [await killLatency(context, false), await killLatency(context, true)],
    load_average_after: loadavg().map((value) => round(value, 2)),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
