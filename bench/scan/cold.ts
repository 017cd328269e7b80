// A cold `hldp scan --repo URL` (a fresh process and cache, a remote over smart HTTP) of this version beside other
// builds (`--before DIR`, repeatable as `--version NAME=DIR`: `git archive <commit> src schemas package.json
// tsconfig.json tsconfig.build.json bin native-repo assets | tar -x -C DIR`, node_modules linked, built there), and
// the floor: `git clone --depth 1` + `cat` of every TOOL.hdlp. Rounds alternate the order. Each CLI run reports its
// own CPU (all threads) and peak RSS at exit. The git server runs in a process of its own. Goal (issue #18): at
// 100,000 tools ≤ 2× the floor and ≤ 300 MB RSS. `--profile DIR` adds `--cpu-prof` (this version only).
// `--url URL` scans a repository already served (of `--tools` tools: `bench/scan/serve-git.ts` over a bare clone of one
// `generate-repository.ts` made) instead of generating one: at 100,000 tools generating takes minutes on a loaded machine.
// Usage: npx tsx bench/scan/cold.ts [--tools 10000] [--rounds 3] [--before DIR] [--version NAME=DIR] [--profile DIR] [--url URL]
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { benchTempDir } from '../work-folder.js';
import { serveGeneratedRepository } from './served-repository.js';

const execFileAsync = promisify(execFile);
const { values } = parseArgs({
  options: {
    tools: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    before: { type: 'string' },
    version: { type: 'string', multiple: true, default: [] },
    profile: { type: 'string' },
    url: { type: 'string' },
  },
});
const size = Number(values.tools);
const versions: Array<[string, string]> = [['this', new URL('../..', import.meta.url).pathname]];
if (values.before) versions.unshift(['before', resolve(values.before)]);
for (const spec of values.version) {
  const [name, dir] = spec.split('=');
  versions.push([name!, resolve(dir!)]);
}

// what the CLI process used, printed on stderr at its exit
const USAGE_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nhldp-bench-usage='+JSON.stringify({cpu:(u.userCPUTime+u.systemCPUTime)/1000,rss:u.maxRSS})+'\\n')})`;

async function coldScan(root: string, url: string, cacheDir: string, profile: string | undefined): Promise<{ wall: number; cpu: number; rssMb: number }> {
  const start = performance.now();
  const args = ['--import', USAGE_HOOK, ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile, '--cpu-prof-interval', '1000'] : []), join(root, 'bin/hldp.js'), 'scan', '--repo', url, '--json'];
  const done = await execFileAsync(process.execPath, args, { env: { ...process.env, HLDP_CACHE_DIR: cacheDir }, maxBuffer: 1 << 30 });
  const wall = performance.now() - start;
  const scanned = JSON.parse(done.stdout) as { tools: unknown[]; errors: unknown[] };
  if (scanned.tools.length !== size || scanned.errors.length) throw new Error(`${root}: ${scanned.tools.length} tools, ${scanned.errors.length} errors`);
  const usage = JSON.parse(/hldp-bench-usage=(.*)/.exec(done.stderr)![1]!) as { cpu: number; rss: number };
  return { wall, cpu: usage.cpu, rssMb: Math.round(usage.rss / 1024) };
}

const temp = await benchTempDir('hldp-bench-cold-');
const served = values.url ? undefined : await serveGeneratedRepository(temp.path, size);
const url = values.url ?? served!.url;
const loadBefore = loadavg();
const samples = new Map<string, Array<{ wall: number; cpu: number; rssMb: number }>>([['floor', []], ...versions.map(([name]): [string, []] => [name, []])]);
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    const clone = join(temp.path, `clone-${round}`);
    const start = performance.now();
    const startCpu = process.cpuUsage();
    // the floor's children: clone and cat (their CPU is not this process's; the wall clock is what it is judged by)
    await execFileAsync('git', ['clone', '-q', '--depth', '1', '--single-branch', '--no-tags', url, clone]);
    await execFileAsync('sh', ['-c', 'find tools -name TOOL.hdlp -exec cat {} + | wc -c'], { cwd: clone, maxBuffer: 1 << 30 });
    void startCpu;
    samples.get('floor')!.push({ wall: performance.now() - start, cpu: NaN, rssMb: NaN });
    await rm(clone, { recursive: true, force: true });
    for (const [name, root] of order) {
      const cacheDir = join(temp.path, `cache-${name}-${round}`);
      samples.get(name)!.push(await coldScan(root, url, cacheDir, name === 'this' ? values.profile : undefined));
      await rm(cacheDir, { recursive: true, force: true });
    }
  }
  const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const floor = median(samples.get('floor')!.map((sample) => sample.wall));
  const report = Object.fromEntries(
    [...samples].filter(([name]) => name !== 'floor').map(([name, list]) => {
      const wall = median(list.map((sample) => sample.wall));
      return [name, { wall_ms: Math.round(wall), cpu_ms: Math.round(median(list.map((sample) => sample.cpu))), max_rss_mb: median(list.map((sample) => sample.rssMb)), over_floor: +(wall / floor).toFixed(2), walls_ms: list.map((sample) => Math.round(sample.wall)) }];
    }),
  );
  process.stdout.write(
    `${JSON.stringify({ benchmark: 'cold hldp scan over smart HTTP', tools: size, rounds: Number(values.rounds), load_average: { before: loadBefore, after: loadavg() }, floor_git_clone_depth1_plus_cat_ms: Math.round(floor), ...report, goal: '100,000 tools: ≤ 2× the floor, ≤ 300 MB RSS' }, null, 2)}\n`,
  );
} finally {
  served?.stop();
  await temp.cleanup();
}
