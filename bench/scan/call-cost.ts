// `hldp call` of one tool from a warm cache, as whole CLI processes: a registry of N generated tools beside one of 5,
// for this checkout and, with `--before DIR`, another (a checkout with its `dist/` built and `bin/`, node_modules
// linked), alternated in one run, each version with its own caches. Medians of wall and CPU milliseconds (the
// process's own, all threads, read at its exit); the goal is on the extra cost of N tools over 5 (issue #18).
// Usage: npx tsx bench/scan/call-cost.ts [--tools 10000] [--before DIR] [--runs 9]
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { benchTempDir } from '../work-folder.js';
import { HLDP_BIN } from '../../test/helpers/run-cli.js';
import { generateRepository, toolName } from './generate-repository.js';

const execFileAsync = promisify(execFile);
const { values } = parseArgs({ options: { tools: { type: 'string', default: '10000' }, before: { type: 'string' }, runs: { type: 'string', default: '9' } } });
const size = Number(values.tools);
const versions: Array<[string, string]> = [['this', HLDP_BIN]];
if (values.before) versions.unshift(['before', join(resolve(values.before), 'bin/hldp.js')]);

// the process's CPU time (user + system, every thread), printed on stderr at its exit
const CPU_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\nhldp-bench-cpu-us='+(u.user+u.system)+'\\n')})`;

const temp = await benchTempDir('hldp-bench-call-');
const repos: Array<[string, string]> = [['small', join(temp.path, 'small')], ['large', join(temp.path, 'large')]];
await generateRepository(repos[0]![1], 5);
await generateRepository(repos[1]![1], size);

async function call(version: string, bin: string, repo: string): Promise<{ wall: number; cpu: number }> {
  const env = { ...process.env, HLDP_CACHE_DIR: join(temp.path, `cache-${version}`), HLDP_DATA_DIR: join(temp.path, `data-${version}`), HLDP_WORKSPACE: temp.path };
  const start = performance.now();
  // the tool's own run fails (the generated tools' params are not the gatekeeper's): the cost measured is the same
  const done = await execFileAsync(process.execPath, ['--import', CPU_HOOK, bin, 'call', toolName(1), '--repo', repo, '--params', '{"target":"x"}'], { env }).catch((error: { stderr: string }) => error);
  const wall = performance.now() - start;
  const cpu = Number(/hldp-bench-cpu-us=(\d+)/.exec(done.stderr)?.[1] ?? NaN) / 1000;
  if (!/receipt/.test(done.stderr)) throw new Error(`${version}: no receipt: ${done.stderr}`);
  return { wall, cpu };
}

const loadBefore = loadavg();
try {
  // warm every cache (scan and search index) first
  for (const [version, bin] of versions) for (const [, repo] of repos) await call(version, bin, repo);
  const samples = new Map(versions.flatMap(([version]) => repos.map(([repo]) => [`${version} ${repo}`, { wall: [] as number[], cpu: [] as number[] }])));
  for (let run = 0; run < Number(values.runs); run++) {
    // alternated, so that the load's drift hits every version and size alike
    for (const [version, bin] of run % 2 === 0 ? versions : [...versions].reverse()) {
      for (const [repo, path] of run % 2 === 0 ? repos : [...repos].reverse()) {
        const { wall, cpu } = await call(version, bin, path);
        samples.get(`${version} ${repo}`)!.wall.push(wall);
        samples.get(`${version} ${repo}`)!.cpu.push(cpu);
      }
    }
  }
  const median = (list: number[]): number => Math.round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!);
  const report = Object.fromEntries(
    versions.map(([version]) => {
      const small = samples.get(`${version} small`)!;
      const large = samples.get(`${version} large`)!;
      return [
        version,
        {
          [`wall_ms_${size}_tools`]: median(large.wall),
          wall_ms_5_tools: median(small.wall),
          [`cpu_ms_${size}_tools`]: median(large.cpu),
          cpu_ms_5_tools: median(small.cpu),
          extra_wall_ms: median(large.wall) - median(small.wall),
          extra_cpu_ms: median(large.cpu) - median(small.cpu),
        },
      ];
    }),
  );
  process.stdout.write(`${JSON.stringify({ benchmark: `hldp call of one tool, warm cache: ${size} tools vs 5`, runs: Number(values.runs), load_average: { before: loadBefore, after: loadavg() }, ...report, goal: 'extra ≤ 100 ms at 10,000 tools' }, null, 2)}\n`);
} finally {
  await temp.cleanup();
}
