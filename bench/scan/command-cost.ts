// One `hldp` command as whole processes, this checkout's bin/hldp.js beside another's (`--before DIR`, a checkout with
// its dist/ built), alternated: medians of wall and CPU milliseconds (the process's own, all threads, read at its exit).
// Each version keeps its own caches under WORK-before and WORK-this (warm them with a first run). Issue #18: what
// module loading costs every command.
// Usage: npx tsx bench/scan/command-cost.ts --before DIR --work WORK [--runs 7] -- ARGS...
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { HLDP_BIN } from '../../test/helpers/run-cli.js';
import { usage } from '../usage.js';

const execFileAsync = promisify(execFile);
const { values, positionals } = parseArgs({ options: { before: { type: 'string' }, work: { type: 'string' }, runs: { type: 'string', default: '7' } }, allowPositionals: true });
if (!values.before || !values.work) usage('npx tsx bench/scan/command-cost.ts --before DIR --work WORK [--runs 7] -- ARGS...');
const versions: Array<[string, string]> = [['before', join(resolve(values.before), 'bin/hldp.js')], ['this', HLDP_BIN]];
// the process's CPU time (user + system, every thread), printed on stderr at its exit
const CPU_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\nhldp-bench-cpu-us='+(u.user+u.system)+'\\n')})`;
const samples = new Map(versions.map(([version]) => [version, { wall: [] as number[], cpu: [] as number[] }]));
const loadBefore = loadavg();
for (let run = 0; run < Number(values.runs); run++) {
  for (const [version, bin] of run % 2 === 0 ? versions : [...versions].reverse()) {
    const work = `${values.work}-${version}`;
    const env = { ...process.env, HLDP_CACHE_DIR: join(work, 'cache'), HLDP_DATA_DIR: join(work, 'data'), HLDP_WORKSPACE: work, HLDP_LOG_LEVEL: 'warn' };
    const start = performance.now();
    // a command that exits non-zero (a failed call) costs the same: its output is not what is measured
    const done = await execFileAsync(process.execPath, ['--import', CPU_HOOK, bin, ...positionals], { env, maxBuffer: 1 << 26 }).catch((error: { stderr: string }) => error);
    samples.get(version)!.wall.push(performance.now() - start);
    samples.get(version)!.cpu.push(Number(/hldp-bench-cpu-us=(\d+)/.exec(done.stderr)?.[1] ?? NaN) / 1000);
  }
}
const median = (list: number[]): number => Math.round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!);
const round = (list: number[]): number[] => list.map((x) => Math.round(x * 10) / 10);
console.log(JSON.stringify({
  command: `hldp ${positionals.join(' ')}`,
  runs: Number(values.runs),
  load_average: { before: round(loadBefore), after: round(loadavg()) },
  ...Object.fromEntries([...samples].map(([version, { wall, cpu }]) => [version, { wall_ms: median(wall), cpu_ms: median(cpu) }])),
}));
