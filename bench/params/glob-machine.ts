// A policy glob's match, before and after its RegExp ran as a state machine: for each case, the CPU of one match by
// picomatch's own matcher (the backtracking RegExp, what main runs) and by the state machine (globMachine), alternated
// in one process, the median of --runs, with the units each is charged (main's estimate, globWork; the machine's
// length × program), which engine globMatcher picks (the one charged less) and the machine's ns a unit. The machine
// is shared: CPU time, not wall time.
// `npx tsx bench/params/glob-machine.ts [--runs 7]`
import picomatch from 'picomatch';
import { MAX_PARAMS_WORK } from '../../src/matcher/params-work.js';
import { globMachine } from '../../src/policy/glob-matcher.js';
import { globShape, globWork } from '../../src/policy/glob-work.js';

interface Case {
  name: string;
  glob: string;
  path: string;
}

const segments = (count: number, name: (index: number) => string): string => Array.from({ length: count }, (_, index) => name(index)).join('/');

const CASES: Case[] = [
  { name: '150-segment note path, no match', glob: '**/secret/**/x/**', path: segments(150, (i) => `section-${i}`) },
  { name: '150-segment note path, a match', glob: '**/secret/**/x/**', path: segments(150, (i) => (i === 20 ? 'secret' : i === 100 ? 'x' : `section-${i}`)) },
  { name: '255 x "a/b" under **/a/**/b/**/c', glob: '**/a/**/b/**/c', path: `${'a/b/'.repeat(127)}x` },
  { name: '255 x "secrets" under **/secrets/**/*.key', glob: '**/secrets/**/*.key', path: `${'secrets/'.repeat(255)}x` },
  { name: '255 segments, 4,079 bytes, no match', glob: '**/secret/**/x/**', path: segments(255, (i) => `section-${String(i).padStart(7, '0')}`) },
  { name: 'short path under agent/**', glob: 'agent/**', path: 'agent/notes/today.md' },
];

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 7);

function cpuMs(match: () => boolean, repeat: number): number {
  const start = process.cpuUsage();
  for (let index = 0; index < repeat; index += 1) match();
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000 / repeat;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

console.log(`runs ${runs}, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}, budget ${MAX_PARAMS_WORK.toLocaleString('en-US')} units`);
console.log('case | path chars | picomatch CPU ms | machine CPU ms | main charge | machine charge | picked | machine ns/unit');
for (const { name, glob, path } of CASES) {
  const old = picomatch(glob, { dot: true });
  const { matches, work } = globMachine(old, glob)!;
  if (old(path) !== matches(path)) throw new Error(`${name}: the two disagree`);
  const charged = work(path);
  // a slow backtracking match once a run; a fast one enough times to be timed
  const repeat = Math.max(1, Math.round(20 / Math.max(cpuMs(() => old(path), 1), 0.05)));
  const [before, after] = [[] as number[], [] as number[]];
  for (let run = 0; run < runs; run += 1) {
    before.push(cpuMs(() => old(path), repeat));
    after.push(cpuMs(() => matches(path), Math.max(repeat, 20)));
  }
  const estimate = globWork(globShape(glob), path);
  console.log(`${name} | ${path.length} | ${median(before).toFixed(3)} | ${median(after).toFixed(3)} | ${estimate.toLocaleString('en-US')}${estimate > MAX_PARAMS_WORK ? ' (past the budget)' : ''} | ${charged.toLocaleString('en-US')} | ${estimate <= charged ? 'picomatch' : 'machine'} | ${((median(after) * 1e6) / charged).toFixed(1)}`);
}
