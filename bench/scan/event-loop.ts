// Event-loop delay during a rescan, at scale: a gateway (as `hldp serve` runs it: index, matcher with its search
// index built) over a local git repository of N generated tools; one definition changes in a new commit, and the
// rescan that picks it up runs while perf_hooks.monitorEventLoopDelay and a 5 ms ticker watch the loop. A
// request to /healthz waits as long as the loop is held, so the p99 and the longest stall are what a probe sees.
// Usage: npm run bench:scan:loop [-- --sizes 10000,100000 --rescans 5]
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { loadConfig } from '../../src/gateway/config/index.js';
import { Gateway } from '../../src/gateway/service/index.js';
import { git, initRepository, makeTempDir } from '../../test/helpers/git.js';
import { toolYaml } from './tool-yaml.js';

const execFileAsync = promisify(execFile);
const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,100000' }, rescans: { type: 'string', default: '5' } } });
const sizes = values.sizes.split(',').map(Number);
const rescans = Number(values.rescans);

/** A repository of `size` tools in one commit, written with `git fast-import` (seconds at 100,000 files). */
async function generate(repo: string, size: number): Promise<void> {
  await initRepository(repo);
  const parts: string[] = ['commit refs/heads/main', 'committer Bench <bench@example.test> 1700000000 +0000', 'data 5', 'bench'];
  for (let index = 0; index < size; index++) {
    const name = `tool-${String(index).padStart(6, '0')}`;
    const text = toolYaml(name);
    parts.push(`M 100644 inline tools/${name}/TOOL.hdlp`, `data ${Buffer.byteLength(text)}`, text);
  }
  const child = execFile('git', ['fast-import', '--quiet'], { cwd: repo, maxBuffer: 1 << 26 });
  const done = new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)))));
  child.stdin!.end(`${parts.join('\n')}\n`);
  await done;
  await execFileAsync('git', ['reset', '-q', '--hard', 'main'], { cwd: repo });
}

/** Watches the loop while `work` runs: monitorEventLoopDelay's p99 and max, and the longest gap between 5 ms ticks. */
async function watched<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; p99: number; max: number; longestTick: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  let last = performance.now();
  let longestTick = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestTick = Math.max(longestTick, now - last);
    last = now;
  }, 5);
  histogram.enable();
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  histogram.disable();
  clearInterval(ticker);
  return { result, ms, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, longestTick };
}

const round = (value: number): number => Math.round(value * 10) / 10;
const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

const results: Record<string, unknown> = {};
for (const size of sizes) {
  const temp = await makeTempDir('hldp-bench-loop-');
  try {
    const repo = join(temp.path, 'repo');
    let start = performance.now();
    await generate(repo, size);
    const generateMs = performance.now() - start;
    await mkdir(join(temp.path, 'data'), { recursive: true });
    const config = loadConfig({ env: { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path } });
    start = performance.now();
    const gateway = await Gateway.open({ config });
    await gateway.warmUp();
    const openMs = performance.now() - start;
    const runs: Array<{ ms: number; p99: number; max: number; longestTick: number }> = [];
    for (let run = 0; run < rescans; run++) {
      const name = `tool-${String(run * 7 % size).padStart(6, '0')}`;
      await git(repo, 'checkout', '-q', 'main');
      const { writeFile } = await import('node:fs/promises');
      await writeFile(join(repo, 'tools', name, 'TOOL.hdlp'), toolYaml(name, run + 1));
      await git(repo, 'commit', '-qam', `change ${name}`);
      const { result, ...measured } = await watched(() => gateway.rescan());
      if (!result.changed) throw new Error('the rescan found no new commit');
      runs.push(measured);
    }
    await gateway.close();
    results[String(size)] = {
      generate_s: round(generateMs / 1000),
      open_and_warm_up_s: round(openMs / 1000),
      rescan_ms_median: round(median(runs.map((run) => run.ms))),
      loop_delay_p99_ms_median: round(median(runs.map((run) => run.p99))),
      loop_delay_max_ms_median: round(median(runs.map((run) => run.max))),
      longest_tick_gap_ms_median: round(median(runs.map((run) => run.longestTick))),
      longest_tick_gap_ms_worst: round(Math.max(...runs.map((run) => run.longestTick))),
      rescans: runs.length,
    };
    process.stderr.write(`${size}: ${JSON.stringify(results[String(size)])}\n`);
  } finally {
    await temp.cleanup();
  }
}
const { loadavg } = await import('node:os');
process.stdout.write(`${JSON.stringify({ benchmark: 'event-loop delay during a one-file rescan', load: loadavg().map(round), results }, null, 2)}\n`);
