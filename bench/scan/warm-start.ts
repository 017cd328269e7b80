// A warm start (a new Scanner over the cache, the repository unchanged) of this version beside another checkout's
// (`--before DIR`: `git archive <commit> src schemas package.json | tar -x -C DIR`, node_modules linked), alternated in
// one process, each over its own cache; medians of wall and CPU milliseconds (on a loaded machine the CPU time is
// what a quiet one would see). Goal: ≤ 100 ms at 10,000 tools (issue #18).
// Usage: npx tsx bench/scan/warm-start.ts --repo REPO --work DIR [--before DIR] [--runs 9]
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Scanner } from '../../src/scanner/index.js';

const { values } = parseArgs({ options: { repo: { type: 'string' }, work: { type: 'string' }, before: { type: 'string' }, runs: { type: 'string', default: '9' } } });
if (!values.repo || !values.work) throw new Error('usage: warm-start.ts --repo REPO --work DIR [--before DIR] [--runs 9]');
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
const times = new Map(versions.map(([name]) => [name, { wall: [] as number[], cpu: [] as number[] }]));
for (const [, Version, cacheDir] of versions) {
  // the cache each version reads is written by that version first
  const scanner = new Version({ repo: values.repo, cacheDir });
  await scanner.scan();
  await scanner.flush();
}
for (let run = 0; run < Number(values.runs); run++) {
  for (const [name, Version, cacheDir] of run % 2 === 0 ? versions : [...versions].reverse()) {
    const scanner = new Version({ repo: values.repo, cacheDir });
    const start = performance.now();
    const startCpu = cpu();
    const index = await scanner.scan();
    times.get(name)!.cpu.push(cpu() - startCpu);
    times.get(name)!.wall.push(performance.now() - start);
    if (index.tools.length === 0) throw new Error('the warm start found no tools');
  }
}
const median = (list: number[]): number => Math.round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]! * 10) / 10;
const report = Object.fromEntries([...times].map(([name, { wall, cpu: used }]) => [name, { wall_ms_median: median(wall), cpu_ms_median: median(used) }]));
process.stdout.write(`${JSON.stringify({ benchmark: 'warm start', runs: Number(values.runs), load_average: { before: loadBefore, after: loadavg() }, ...report, goal: '≤ 100 ms at 10,000 tools' }, null, 2)}\n`);
