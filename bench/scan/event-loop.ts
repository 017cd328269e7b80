// Event-loop delay during a rescan, at scale: a gateway (as `hldp serve` runs it: index, matcher with its search
// index built and calibrated, an MCP catalog built) over a local git repository of N generated tools; one
// definition changes in a new commit, and the rescan that picks it up — scan, cache write, matcher update and
// calibration, the next catalog — and then the first tools/list and the first match after the swap run while
// perf_hooks.monitorEventLoopDelay and a 5 ms ticker watch the loop. A request to /healthz waits as long as the
// loop is held, so the p99 and the longest stall are what a probe sees. On a loaded machine a stall in wall time
// also holds the time this process waited for a core; the ticker therefore also reads the process's CPU time
// between two ticks (all its threads: an upper bound of what the loop itself ran), what a quiet machine would see.
// Usage: npm run bench:scan:loop [-- --sizes 10000,100000 --rescans 5 --profile /tmp/rescan]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/index.js';
import { createMcpServer } from '../../src/mcp-front/create-mcp-server.js';
import { catalogFor } from '../../src/sessions/index.js';
import { Gateway } from '../../src/gateway/service/index.js';
import { git } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';
import { generateRepository, toolName } from './generate-repository.js';
import { toolYaml } from './tool-yaml.js';

// --profile PREFIX writes a V8 CPU profile of the rescans (not the set-up) to PREFIX.<size>.cpuprofile and the
// stalls to PREFIX.<size>.stalls.json; bench/scan/stall-report.ts says what ran in each
const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,100000' }, rescans: { type: 'string', default: '5' }, profile: { type: 'string' } } });
const sizes = values.sizes.split(',').map(Number);
const rescans = Number(values.rescans);
const round = (value: number): number => Math.round(value * 10) / 10;
const loadBefore = loadavg().map(round);

const stalls: Array<{ from_us: number; to_us: number; cpu_ms: number }> = [];

/** A sampling CPU profiler on this thread (the inspector's, as `--cpu-prof` uses), for the rescans only. */
async function startProfiler(): Promise<{ stop: (path: string) => Promise<void> }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  return {
    stop: async (path) => {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(path, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** The goal each row is measured against: no stall of the event loop longer than this. */
const GOAL_MS = 50;

interface Watched {
  ms: number;
  p99: number;
  max: number;
  longestTick: number;
  longestTickCpu: number;
}

/**
 * Watches the loop while `work` runs: monitorEventLoopDelay's p99 and max, the longest gap between 5 ms ticks,
 * and the most CPU time the process spent between two ticks.
 */
async function watched<T>(work: () => Promise<T>): Promise<Watched & { result: T }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const cpu = (): number => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  let last = performance.now();
  let lastCpu = cpu();
  let longestTick = 0;
  let longestTickCpu = 0;
  let lastClock = process.hrtime.bigint();
  const ticker = setInterval(() => {
    const now = performance.now();
    const nowCpu = cpu();
    const clock = process.hrtime.bigint();
    longestTick = Math.max(longestTick, now - last);
    longestTickCpu = Math.max(longestTickCpu, nowCpu - lastCpu);
    // with --profile, the stalls are kept (on the profile's clock, microseconds) to find what ran in them
    if (values.profile && nowCpu - lastCpu > 20) stalls.push({ from_us: Number(lastClock / 1000n), to_us: Number(clock / 1000n), cpu_ms: nowCpu - lastCpu });
    last = now;
    lastCpu = nowCpu;
    lastClock = clock;
  }, 5);
  histogram.enable();
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  histogram.disable();
  clearInterval(ticker);
  return { result, ms, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, longestTick, longestTickCpu };
}

const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

const results: Record<string, unknown> = {};
for (const size of sizes) {
  const temp = await benchTempDir('hldp-bench-loop-');
  try {
    const repo = join(temp.path, 'repo');
    let start = performance.now();
    await generateRepository(repo, size);
    const generateMs = performance.now() - start;
    await mkdir(join(temp.path, 'data'), { recursive: true });
    const config = loadConfig({ env: { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path } });
    start = performance.now();
    const gateway = await Gateway.open({ config });
    await gateway.warmUp();
    await gateway.prepareMatching();
    // an MCP client is connected: its tools/list built the catalog, which every rescan then keeps ready
    const mcp = createMcpServer(gateway, { principal: 'local' });
    catalogFor(gateway.registry.index);
    const openMs = performance.now() - start;
    const runs: Watched[] = [];
    const profiler = values.profile ? await startProfiler() : undefined;
    for (let run = 0; run < rescans; run++) {
      const name = toolName((run * 7919) % size);
      await writeFile(join(repo, 'tools', name, 'TOOL.hdlp'), toolYaml(name, run + 1));
      await git(repo, 'commit', '-qam', `change ${name}`);
      const { result, ...measured } = await watched(async () => {
        const rescan = await gateway.rescan();
        // what the next requests pay for: the first tools/list (the new catalog) and the first match
        catalogFor(gateway.registry.index);
        gateway.registry.matcher.matchIntent(`run ${name} on the target`);
        return rescan;
      });
      if (!result.changed) throw new Error('the rescan found no new commit');
      if (!gateway.registry.index.tools.find((tool) => tool.name === name)?.intent.includes(`variant ${run + 1}`)) throw new Error('the rescan missed the change');
      runs.push(measured);
      process.stderr.write(`${size} rescan ${run + 1}: ${JSON.stringify(Object.fromEntries(Object.entries(measured).map(([key, value]) => [key, round(value)])))}\n`);
    }
    if (profiler) {
      await profiler.stop(`${values.profile}.${size}.cpuprofile`);
      await writeFile(`${values.profile}.${size}.stalls.json`, JSON.stringify(stalls.splice(0)));
    }
    await mcp.close();
    await gateway.close();
    const worstCpu = Math.max(...runs.map((run) => run.longestTickCpu));
    results[String(size)] = {
      generate_s: round(generateMs / 1000),
      open_and_warm_up_s: round(openMs / 1000),
      rescan_ms_median: round(median(runs.map((run) => run.ms))),
      loop_delay_p99_ms_median: round(median(runs.map((run) => run.p99))),
      loop_delay_max_ms_median: round(median(runs.map((run) => run.max))),
      longest_tick_gap_ms_median: round(median(runs.map((run) => run.longestTick))),
      longest_tick_gap_ms_worst: round(Math.max(...runs.map((run) => run.longestTick))),
      longest_cpu_between_ticks_ms_median: round(median(runs.map((run) => run.longestTickCpu))),
      longest_cpu_between_ticks_ms_worst: round(worstCpu),
      goal_ms: GOAL_MS,
      goal_met_in_cpu_time: worstCpu <= GOAL_MS,
      rescans: runs.length,
    };
    process.stderr.write(`${size}: ${JSON.stringify(results[String(size)])}\n`);
  } finally {
    await temp.cleanup();
  }
}
process.stdout.write(`${JSON.stringify({ benchmark: 'event-loop delay during a one-file rescan', load_before_and_after: [loadBefore, loadavg().map(round)], results }, null, 2)}\n`);
