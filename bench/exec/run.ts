// Benchmarks of the shell executor's constraint runner; prints one JSON document.
//   npm run bench:exec
// 1. overhead: `true` through execute() vs a bare child_process.spawn, interleaved, medians and their ratios: contained
//    only (a PID namespace, no sandbox: target ≤ 1.5×), sandbox off (namespace + limits), the bubblewrap sandbox of the
//    default configuration (target ≤ 3×), the same with no launcher waiting, and bubblewrap alone spawned bare (its
//    own start-up, for scale)
// 2. memory: peak RSS growth while a tool prints 1 GiB under a 64 KiB cap, in the sandbox (target < 16 MiB)
// 3. kill: time from the deadline to the whole process tree gone, with and without children ignoring SIGTERM, contained
//    only and in the sandbox (target < 200 ms)
import { spawn } from 'node:child_process';
import { readdir, readFile, realpath, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { ToolDefinition } from '../../src/core/index.js';
import { execute, minimalEnvironment, type ExecutionContext } from '../../src/executors/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { benchFolder } from '../work-folder.js';

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

// bubblewrap's own start-up, for scale: every namespace and a read-only root, no limits, spawned bare
const BUBBLEWRAP_ALONE = ['bwrap', '--unshare-all', '--die-with-parent', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--', 'true'];

function bareSpawn(cwd: string, argv: readonly string[] = ['true']): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: minimalEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

type Contexts = Record<string, ExecutionContext>;

async function overhead(contexts: Contexts, root: string) {
  const definition = tool({ argv: ['true'] });
  const names = [...Object.keys(contexts), 'bubblewrap_alone'];
  const times: Record<string, number[]> = Object.fromEntries([...names, 'bare'].map((name) => [name, []]));
  const once = async (which: string): Promise<number> => {
    const start = performance.now();
    if (which === 'bare') await bareSpawn(root);
    else if (which === 'bubblewrap_alone') await bareSpawn(root, BUBBLEWRAP_ALONE);
    else {
      const result = await execute(definition, {}, contexts[which]);
      if (!result.ok) throw new Error(`true failed (${which}): ${result.error}`);
    }
    return performance.now() - start;
  };
  const order = [...names, 'bare'];
  for (let warm = 0; warm < 20; warm += 1) for (const which of order) await once(which);
  for (let run = 0; run < OVERHEAD_RUNS; run += 1) {
    // rotate which goes first, so that none always meets a warmer system
    for (let turn = 0; turn < order.length; turn += 1) {
      const which = order[(run + turn) % order.length]!;
      times[which]!.push(await once(which));
    }
  }
  const bareMedian = median(times.bare!);
  const rows = Object.fromEntries(
    names.map((name) => {
      const own = times[name]!;
      // each run's set met the same load: the median of the paired ratios resists drift in the machine's load
      const paired = median(own.map((time, run) => time / times.bare![run]!));
      return [name, { median_ms: round(median(own)), ratio: round(median(own) / bareMedian), paired_ratio_median: round(paired) }];
    }),
  );
  return { runs: OVERHEAD_RUNS, bare_spawn_median_ms: round(bareMedian), ...rows, target_ratio: { contained: 1.5, sandboxed: 3 } };
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
    target_growth_mib: 16,
  };
}

/** Live processes whose command line holds `marker` (the sandbox's PIDs are its own: the host sees them only this way). */
async function processesMatching(marker: string): Promise<number> {
  let found = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (!commandLine.replaceAll('\0', ' ').includes(marker)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found += 1;
  }
  return found;
}

async function killLatency(context: ExecutionContext, ignoreTerm: boolean) {
  // long enough for the script to have started on a loaded machine; the figure is measured from the deadline
  const timeout = 1000;
  const latencies: number[] = [];
  let stragglers = 0;
  for (let run = 0; run < KILL_RUNS; run += 1) {
    // two grandchildren, one of them in a session of its own, waited on past the deadline
    const marker = `${3000 + run}.${process.pid}${ignoreTerm ? 1 : 0}`;
    const script = `${ignoreTerm ? 'trap "" TERM; ' : ''}sleep ${marker} & setsid sleep ${marker} & echo started; wait`;
    const start = performance.now();
    const result = await execute(tool({ script }, { timeout_ms: timeout }), {}, context);
    if (!result.timed_out || result.output !== 'started\n') throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    // the receipt comes once the tree is gone: its time is the figure, and a look at /proc (not timed) proves it;
    // a straggler would be waited for and its time counted
    let gone = performance.now();
    if ((await processesMatching(`sleep ${marker}`)) > 0) {
      while ((await processesMatching(`sleep ${marker}`)) > 0) await new Promise((resolve) => setImmediate(resolve));
      gone = performance.now();
      stragglers += 1;
    }
    latencies.push(gone - (start + timeout));
  }
  return { runs: KILL_RUNS, children_ignore_sigterm: ignoreTerm, median_ms: round(median(latencies), 1), max_ms: round(Math.max(...latencies), 1), alive_after_receipt: stragglers, target_ms: 200 };
}

const root = await realpath(benchFolder('hldp-bench-exec-'));
try {
  const sandbox = await createSandbox({ mode: 'auto' });
  if (sandbox.status.sandbox !== 'on') throw new Error(`the sandboxed rows need bubblewrap: ${sandbox.status.reason}`);
  const contexts: Contexts = {
    // no sandbox given: the PID namespace every run gets (unshare), nothing else
    contained: { shell: { root } },
    // what a host without bubblewrap gets: the namespace, prlimit and a pids cgroup where one can be made
    sandbox_off: { shell: { root, sandbox: await createSandbox({ mode: 'off' }) } },
    // the default configuration: bubblewrap, its limits, a pids cgroup where one can be made; from a command line's
    // second run on, each run takes a launcher that set its sandbox up ahead of time
    sandboxed: { shell: { root, sandbox } },
    // the same with no launcher waiting: every run sets its sandbox up itself (a command line's first run, or one
    // after its launchers were idle for 30 s)
    sandboxed_no_waiting: { shell: { root, sandbox: await createSandbox({ mode: 'auto', waitingLaunchers: 0 }) } },
  };
  const report = {
    benchmark: 'exec',
    node: process.version,
    cpus: cpus().length,
    sandbox: sandbox.status,
    load_average_before: loadavg().map((value) => round(value, 2)),
    overhead: await overhead(contexts, root),
    memory_1gib_under_64kib_cap: await memory(contexts.sandboxed!),
    deadline_to_tree_gone: {
      contained: [await killLatency(contexts.contained!, false), await killLatency(contexts.contained!, true)],
      sandboxed: [await killLatency(contexts.sandboxed!, false), await killLatency(contexts.sandboxed!, true)],
    },
    load_average_after: loadavg().map((value) => round(value, 2)),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
