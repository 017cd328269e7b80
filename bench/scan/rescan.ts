// An incremental rescan (a running Scanner sees a one-file commit on a remote over smart HTTP) of this version beside
// another checkout's (`--before DIR`: `git archive <commit> src schemas package.json | tar -x -C DIR`, node_modules
// linked), alternated in one process, each with its own clone and cache; the git server runs in a process of its own.
// Medians of wall and CPU milliseconds (this process's, all threads), of the snapshot's share (head check, fetch,
// reading the new tree), and of the git server's CPU meanwhile (its process and the `git http-backend`, `upload-pack`
// and `pack-objects` processes it ran: the part of the wall time that is the server's; of it, the git processes'). Goal: ≤ 100 ms at 10,000 tools (issue #18).
// --push hands every rescan what a signed push webhook says (the branch and the new commit), as `hldp serve` does: this
// version then sends the fetch beside the head check (a version without it ignores the hint).
// --profile PREFIX writes V8 CPU profiles of this version's rescans to PREFIX.scan.<run>.cpuprofile and of the cache
// writes after them to PREFIX.write.<run>.cpuprofile.
// Usage: npx tsx bench/scan/rescan.ts [--tools 10000] [--before DIR] [--runs 9] [--push] [--profile PREFIX]
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Scanner } from '../../src/scanner/index.js';
import { git, makeTempDir } from '../../test/helpers/git.js';
import { toolName } from './generate-repository.js';
import { serveGeneratedRepository } from './served-repository.js';
import { toolYaml } from './tool-yaml.js';

const { values } = parseArgs({ options: { tools: { type: 'string', default: '10000' }, before: { type: 'string' }, runs: { type: 'string', default: '9' }, push: { type: 'boolean', default: false }, profile: { type: 'string' } } });
const size = Number(values.tools);
type ScannerClass = typeof Scanner;
const versions: Array<[string, ScannerClass]> = [['this', Scanner]];
if (values.before) {
  const before = (await import(pathToFileURL(join(resolve(values.before), 'src/scanner/index.ts')).href)) as { Scanner: ScannerClass };
  versions.unshift(['before', before.Scanner]);
}
/** A sampling CPU profiler on this thread (the inspector's, as `--cpu-prof` uses) around one piece of work. */
async function profiled<T>(path: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!path) return work();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(path, JSON.stringify(profile));
    session.disconnect();
  }
}

const cpu = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

const temp = await makeTempDir('hldp-bench-rescan-');
const served = await serveGeneratedRepository(temp.path, size);
const { work, url } = served;
const loadBefore = loadavg();
try {
  const scanners = new Map<string, { scanner: Scanner; snapshotMs: number }>();
  for (const [name, Version] of versions) {
    const scanner = new Version({ repo: url, cacheDir: join(temp.path, `cache-${name}`) });
    await scanner.scan();
    await scanner.flush();
    const timed = { scanner, snapshotMs: 0 };
    const source = scanner.source as { snapshot: (...hint: unknown[]) => Promise<unknown> };
    const snapshot = source.snapshot.bind(source);
    source.snapshot = async (...hint: unknown[]) => {
      const start = performance.now();
      try {
        return await snapshot(...hint);
      } finally {
        timed.snapshotMs += performance.now() - start;
      }
    };
    scanners.set(name, timed);
  }
  const times = new Map(versions.map(([name]) => [name, { wall: [] as number[], cpu: [] as number[], snapshot: [] as number[], server: [] as number[], git: [] as number[] }]));
  // one warm-up commit each, then measured ones: both versions see the same commits, alternately first
  for (let run = 0; run <= Number(values.runs); run++) {
    await writeFile(join(work, 'tools', toolName(0), 'TOOL.hdlp'), toolYaml(toolName(0), run + 1));
    await git(work, 'commit', '-q', '-am', `change ${run}`);
    await served.push();
    const pushed = values.push ? { ref: 'refs/heads/main', after: await git(work, 'rev-parse', 'HEAD') } : undefined;
    for (const [name] of run % 2 === 0 ? versions : [...versions].reverse()) {
      const timed = scanners.get(name)!;
      timed.snapshotMs = 0;
      const start = performance.now();
      const startCpu = cpu();
      const startServer = served.serverCpuMs();
      const startGit = served.serverCpuSplitMs().git;
      const profile = values.profile && name === 'this' && run > 0 ? `${values.profile}.%s.${run}.cpuprofile` : undefined;
      const index = await profiled(profile?.replace('%s', 'scan'), () => timed.scanner.scan(pushed));
      const wall = performance.now() - start;
      const used = cpu() - startCpu;
      const server = served.serverCpuMs() - startServer;
      const gitProcesses = served.serverCpuSplitMs().git - startGit;
      if (!index.tools[0]?.intent.includes(`variant ${run + 1}`)) throw new Error(`${name}: the rescan missed the change`);
      if (run > 0) {
        times.get(name)!.wall.push(wall);
        times.get(name)!.cpu.push(used);
        times.get(name)!.snapshot.push(timed.snapshotMs);
        times.get(name)!.server.push(server);
        times.get(name)!.git.push(gitProcesses);
      }
      // the cache write that follows a rescan is not part of it, but it is CPU the next one must not share
      const startWrite = performance.now();
      await profiled(profile?.replace('%s', 'write'), () => timed.scanner.flush());
      if (run > 0) (times.get(name) as { write?: number[] }).write = [...((times.get(name) as { write?: number[] }).write ?? []), performance.now() - startWrite];
    }
  }
  const median = (list: number[]): number => Math.round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]! * 10) / 10;
  const report = Object.fromEntries(
    [...times].map(([name, sample]) => [
      name,
      { wall_ms_median: median(sample.wall), cpu_ms_median: median(sample.cpu), of_which_snapshot_ms_median: median(sample.snapshot), git_server_cpu_ms_median: median(sample.server), of_which_git_processes_ms_median: median(sample.git), then_cache_write_ms_median: median((sample as { write?: number[] }).write ?? [0]) },
    ]),
  );
  process.stdout.write(`${JSON.stringify({ benchmark: 'incremental rescan over smart HTTP', tools: size, push_webhook: values.push, runs: Number(values.runs), load_average: { before: loadBefore, after: loadavg() }, ...report, goal: '≤ 100 ms at 10,000 tools' }, null, 2)}\n`);
} finally {
  served.stop();
  await temp.cleanup();
}
