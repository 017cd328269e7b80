// Scan benchmark, side by side in one run: a cold `hldp scan` of a remote over smart HTTP vs the baseline
// `git clone --depth 1` + reading the files with the CLI (`hldp scan` of the checkout), and vs clone + cat (the floor);
// warm start from the cache; an incremental rescan after a one-file commit.
// Usage: npm run bench:scan [-- --sizes 1000,10000 --runs 3]
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { Scanner } from '../../src/scanner/index.js';
import { git, initRepository, makeTempDir } from '../../test/helpers/git.js';
import { startGitHttpServer } from '../../test/helpers/git-http-server.js';
import { HLDP_BIN } from '../../test/helpers/run-cli.js';
import { toolYaml } from './tool-yaml.js';

const execFileAsync = promisify(execFile);
const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000,10000' }, runs: { type: 'string', default: '3' } } });
const sizes = values.sizes.split(',').map(Number);
const runs = Number(values.runs);

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
  const temp = await makeTempDir('hldp-bench-scan-');
  const served = join(temp.path, 'served');
  const work = await initRepository(join(temp.path, 'work'));
  for (let i = 0; i < size; i++) {
    const name = `tool-${String(i).padStart(5, '0')}`;
    await mkdir(join(work, 'tools', name), { recursive: true });
    await writeFile(join(work, 'tools', name, 'TOOL.hdlp'), toolYaml(name));
  }
  await git(work, 'add', '-A');
  await git(work, 'commit', '-q', '-m', `${size} tools`);
  await initRepository(join(served, 'tools.git'), { bare: true });
  await git(work, 'push', '-q', join(served, 'tools.git'), 'main');
  const server = await startGitHttpServer({ projectRoot: served });
  const url = `${server.url}/tools.git`;

  const baseline: number[] = [];
  const floor: number[] = [];
  const coldCli: number[] = [];
  const coldInProcess: number[] = [];
  for (let run = 0; run < runs; run++) {
    // interleaved, so that drift on a shared machine hits both sides alike
    const clone = join(temp.path, `clone-${run}`);
    const [floorMs] = await time(async () => {
      await execFileAsync('git', ['clone', '-q', '--depth', '1', '--single-branch', '--no-tags', url, clone]);
      await execFileAsync('sh', ['-c', 'find tools -name TOOL.hdlp -exec cat {} + | wc -c'], { cwd: clone, maxBuffer: 1 << 30 });
    });
    floor.push(floorMs);
    await rm(clone, { recursive: true, force: true });
    const baselineCache = join(temp.path, `cache-baseline-${run}`);
    const [baselineMs] = await time(async () => {
      await execFileAsync('git', ['clone', '-q', '--depth', '1', '--single-branch', '--no-tags', url, clone]);
      await execFileAsync(process.execPath, [HLDP_BIN, 'scan', '--repo', clone, '--json'], { env: { ...process.env, HLDP_CACHE_DIR: baselineCache }, maxBuffer: 1 << 30 });
    });
    baseline.push(baselineMs);
    await rm(clone, { recursive: true, force: true });
    await rm(baselineCache, { recursive: true, force: true });
    const cacheDir = join(temp.path, `cache-cli-${run}`);
    const [cliMs, output] = await time(() =>
      execFileAsync(process.execPath, [HLDP_BIN, 'scan', '--repo', url, '--json'], { env: { ...process.env, HLDP_CACHE_DIR: cacheDir }, maxBuffer: 1 << 30 }),
    );
    const scanned = JSON.parse(output.stdout) as { tools: unknown[]; errors: unknown[] };
    if (scanned.tools.length !== size || scanned.errors.length) throw new Error(`cold CLI scan found ${scanned.tools.length} tools, ${scanned.errors.length} errors`);
    coldCli.push(cliMs);
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
    await writeFile(join(work, 'tools', 'tool-00000', 'TOOL.hdlp'), toolYaml('tool-00000', run + 1));
    await git(work, 'commit', '-q', '-am', `change ${run}`);
    await git(work, 'push', '-q', join(served, 'tools.git'), 'main');
    const [ms, index] = await time(() => scanner.scan());
    if (!index.tools[0]?.intent.includes(`variant ${run + 1}`)) throw new Error('incremental rescan missed the change');
    incremental.push(ms);
    incrementalRemote.push(fetches.total);
    await scanner.flush();
  }
  await server.close();
  await temp.cleanup();
  const result = {
    tools: size,
    baseline_git_clone_depth1_plus_hldp_scan_of_checkout_ms: Math.round(median(baseline)),
    floor_git_clone_depth1_plus_cat_ms: Math.round(median(floor)),
    cold_scan_cli_ms: Math.round(median(coldCli)),
    cold_scan_in_process_ms: Math.round(median(coldInProcess)),
    cold_cli_over_baseline: +(median(coldCli) / median(baseline)).toFixed(2),
    cold_cli_over_floor: +(median(coldCli) / median(floor)).toFixed(2),
    warm_start_in_process_ms: +median(warm).toFixed(1),
    warm_start_of_which_remote_head_check_ms: +median(warmRemote).toFixed(1),
    warm_start_cli_process_ms: Math.round(median(warmCli)),
    incremental_rescan_ms: +median(incremental).toFixed(1),
    incremental_of_which_fetch_ms: +median(incrementalRemote).toFixed(1),
  };
  console.error(JSON.stringify(result));
  return result;
}

const results = [];
for (const size of sizes) results.push(await benchmark(size));
console.log(JSON.stringify({ benchmark: 'scan', runs, node: process.version, results }, null, 2));
