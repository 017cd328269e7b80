// An incremental rescan of a plain folder (a Scanner over a folder source sees one TOOL.hdlp rewritten: new content,
// new modification time) of this version beside another checkout's (`--before DIR`: a worktree at another commit, its
// node_modules linked), alternated in one process over the same folder, each with its own cache. The folder is a
// generated repository's checkout with its `.git` removed (`--dir` reuses one made before). Medians of wall and CPU
// milliseconds (this process's, all threads), of the snapshot's share (stats, listing, reading), and of the longest
// stall of the event loop during the rescan (a 1 ms timer's largest gap). Goal: ≤ 100 ms at 10,000 tools (issue #18).
// The files are written at least 2 s before the first measured rescan: a file changed shortly before it was read is
// read again at the next rescan (racily clean), so the first rescans after generating read them all.
// --profile PREFIX writes V8 CPU profiles of this version's rescans to PREFIX.<run>.cpuprofile.
// Usage: npx tsx bench/scan/folder-rescan.ts [--tools 10000] [--before DIR] [--runs 9] [--dir DIR] [--profile PREFIX]
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchTempDir } from '../work-folder.js';
import { alternate, median, profiled, range, scannerVersions, timedScanners } from './alternated-rescans.js';
import { generateRepository, toolName } from './generate-repository.js';
import { toolYaml } from './tool-yaml.js';

const { values } = parseArgs({ options: { tools: { type: 'string', default: '10000' }, before: { type: 'string' }, runs: { type: 'string', default: '9' }, dir: { type: 'string' }, profile: { type: 'string' } } });
const size = Number(values.tools);
const versions = await scannerVersions(values.before);

/** The longest gap between two turns of a 1 ms timer while `work` runs: how long a request would have waited. */
async function watched<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  try {
    const value = await work();
    longest = Math.max(longest, performance.now() - last);
    return { value, stallMs: longest };
  } finally {
    clearInterval(timer);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

const temp = await benchTempDir('hldp-bench-folder-rescan-');
let root: string;
if (values.dir && existsSync(join(values.dir, 'tools'))) root = resolve(values.dir);
else {
  root = resolve(values.dir ?? join(temp.path, 'folder'));
  await generateRepository(root, size);
  await rm(join(root, '.git'), { recursive: true, force: true });
}
const changed = join(root, 'tools', toolName(0), 'TOOL.hdlp');
// every file still for longer than the racy window before the first scan reads it
await sleep(2100);
const loadBefore = loadavg();
try {
  const scanners = await timedScanners(versions, root, temp.path, (scanner) => {
    if (scanner.source.constructor.name !== 'FolderSource') throw new Error(`${root} is not read as a plain folder`);
  });
  // one warm-up change each, then measured ones: both versions see the same change, alternately first
  const times = await alternate(scanners, {
    runs: Number(values.runs),
    change: (run) => writeFile(changed, toolYaml(toolName(0), run + 1)),
    rescan: async (name, timed, run) => {
      const profile = values.profile && name === 'this' && run > 0 ? `${values.profile}.${run}.cpuprofile` : undefined;
      const { value: index, stallMs } = await profiled(profile, () => watched(() => timed.scanner.scan()), 100);
      if (index.tools.length !== size) throw new Error(`${name}: ${index.tools.length} tools, not ${size}`);
      return { index, samples: { stall: stallMs } };
    },
  });
  const report = Object.fromEntries(
    [...times].map(([name, sample]) => [
      name,
      {
        wall_ms_median: median(sample.wall!),
        wall_ms_range: range(sample.wall!),
        cpu_ms_median: median(sample.cpu!),
        cpu_ms_range: range(sample.cpu!),
        of_which_snapshot_ms_median: median(sample.snapshot!),
        longest_stall_ms_median: median(sample.stall!),
        longest_stall_ms_max: Math.round(Math.max(...sample.stall!) * 10) / 10,
        then_cache_write_ms_median: median(sample.write!),
      },
    ]),
  );
  process.stdout.write(`${JSON.stringify({ benchmark: 'incremental rescan of a plain folder', tools: size, runs: Number(values.runs), load_average: { before: loadBefore, after: loadavg() }, ...report, goal: '≤ 100 ms at 10,000 tools' }, null, 2)}\n`);
} finally {
  await temp.cleanup();
}
