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
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { git } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';
import { alternate, median, profiled, scannerVersions, timedScanners } from './alternated-rescans.js';
import { toolName } from './generate-repository.js';
import { serveGeneratedRepository } from './served-repository.js';
import { toolYaml } from './tool-yaml.js';

const { values } = parseArgs({ options: { tools: { type: 'string', default: '10000' }, before: { type: 'string' }, runs: { type: 'string', default: '9' }, push: { type: 'boolean', default: false }, profile: { type: 'string' } } });
const size = Number(values.tools);
const versions = await scannerVersions(values.before);

const temp = await benchTempDir('hldp-bench-rescan-');
const served = await serveGeneratedRepository(temp.path, size);
const { work, url } = served;
const loadBefore = loadavg();
try {
  const scanners = await timedScanners(versions, url, temp.path);
  let pushed: { ref: string; after: string } | undefined;
  const profileOf = (name: string, run: number, what: string): string | undefined => (values.profile && name === 'this' && run > 0 ? `${values.profile}.${what}.${run}.cpuprofile` : undefined);
  // one warm-up commit each, then measured ones: both versions see the same commits, alternately first
  const times = await alternate(scanners, {
    runs: Number(values.runs),
    change: async (run) => {
      await writeFile(join(work, 'tools', toolName(0), 'TOOL.hdlp'), toolYaml(toolName(0), run + 1));
      await git(work, 'commit', '-q', '-am', `change ${run}`);
      await served.push();
      pushed = values.push ? { ref: 'refs/heads/main', after: await git(work, 'rev-parse', 'HEAD') } : undefined;
    },
    rescan: async (name, timed, run) => {
      const startServer = served.serverCpuMs();
      const startGit = served.serverCpuSplitMs().git;
      const index = await profiled(profileOf(name, run, 'scan'), () => timed.scanner.scan(pushed), 250);
      return { index, samples: { server: served.serverCpuMs() - startServer, git: served.serverCpuSplitMs().git - startGit } };
    },
    write: (name, timed, run) => profiled(profileOf(name, run, 'write'), () => timed.scanner.flush(), 250),
  });
  const report = Object.fromEntries(
    [...times].map(([name, sample]) => [
      name,
      { wall_ms_median: median(sample.wall!), cpu_ms_median: median(sample.cpu!), of_which_snapshot_ms_median: median(sample.snapshot!), git_server_cpu_ms_median: median(sample.server!), of_which_git_processes_ms_median: median(sample.git!), then_cache_write_ms_median: median(sample.write!) },
    ]),
  );
  process.stdout.write(`${JSON.stringify({ benchmark: 'incremental rescan over smart HTTP', tools: size, push_webhook: values.push, runs: Number(values.runs), load_average: { before: loadBefore, after: loadavg() }, ...report, goal: '≤ 100 ms at 10,000 tools' }, null, 2)}\n`);
} finally {
  served.stop();
  await temp.cleanup();
}
