// A warm start (a new Scanner over the cache, the repository unchanged) of this version beside another checkout's
// (`--before DIR`: `git archive <commit> src schemas package.json | tar -x -C DIR`, node_modules linked), alternated in
// one process, each over its own cache; medians of wall and CPU milliseconds (on a loaded machine the CPU time is
// what a quiet one would see). Goal: ≤ 100 ms at 10,000 tools (issue #18). Definitions read from the cache may be
// made when first read: `then_every_tool` is the cost of then reading the whole list (what `serve` and `list` do).
// Run with --expose-gc: the heap is collected before each measured start, so that one version's garbage is not
// collected on the other's time.
// Usage: node --expose-gc --import tsx bench/scan/warm-start.ts --repo REPO --work DIR [--before DIR] [--runs 9]
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Scanner } from '../../src/scanner/index.js';
import { usage } from '../usage.js';

const { values } = parseArgs({ options: { repo: { type: 'string' }, work: { type: 'string' }, before: { type: 'string' }, runs: { type: 'string', default: '9' } } });
if (!values.repo || !values.work) usage('node --expose-gc --import tsx bench/scan/warm-start.ts --repo REPO --work DIR [--before DIR] [--runs 9]');
type ScannerClass = typeof Scanner;
const versions: Array<[string, ScannerClass, string]> = [['this', Scanner, join(values.work, 'cache-this')]];
if (values.before) {
  const before = (await import(pathToFileURL(join(resolve(values.before), 'src/scanner/index.ts')).href)) as { Scanner: ScannerClass };
  versions.unshift(['before', before.Scanner, join(values.work, 'cache-before')]);
}
const cpu = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const loadBefore = loadavg();
const times = new Map(versions.map(([name]) => [name, { wall: [] as number[], cpu: [] as number[], everyWall: [] as number[], everyCpu: [] as number[] }]));
const collect = (globalThis as { gc?: () => void }).gc ?? (() => process.emitWarning('run with --expose-gc: one version\'s garbage may be collected on the other\'s time'));
for (const [, Version, cacheDir] of versions) {
  // the cache each version reads is written by that version first
  const scanner = new Version({ repo: values.repo, cacheDir });
  await scanner.scan();
  await scanner.flush();
}
for (let run = 0; run < Number(values.runs); run++) {
  for (const [name, Version, cacheDir] of run % 2 === 0 ? versions : [...versions].reverse()) {
    const scanner = new Version({ repo: values.repo, cacheDir });
    collect();
    const start = performance.now();
    const startCpu = cpu();
    const index = await scanner.scan();
    const scanned = performance.now();
    const scannedCpu = cpu();
    const count = index.tools.length;
    const sample = times.get(name)!;
    sample.cpu.push(scannedCpu - startCpu);
    sample.wall.push(scanned - start);
    sample.everyCpu.push(cpu() - scannedCpu);
    sample.everyWall.push(performance.now() - scanned);
    if (count === 0) throw new Error('the warm start found no tools');
  }
}
const median = (list: number[]): number => Math.round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]! * 10) / 10;
const report = Object.fromEntries(
  [...times].map(([name, sample]) => [
    name,
    { wall_ms_median: median(sample.wall), cpu_ms_median: median(sample.cpu), then_every_tool: { wall_ms_median: median(sample.everyWall), cpu_ms_median: median(sample.everyCpu) } },
  ]),
);
process.stdout.write(`${JSON.stringify({ benchmark: 'warm start', runs: Number(values.runs), load_average: { before: loadBefore, after: loadavg() }, ...report, goal: '≤ 100 ms at 10,000 tools' }, null, 2)}\n`);
