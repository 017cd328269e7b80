// CPU until `hldp serve` says it listens (issue #18's ≤ 1 s), read by the server process itself at the moment it writes
// that line (a preload wraps its stderr; `process.cpuUsage()`, all threads), which then exits: `serve-ready.ts` reads
// /proc when its own process gets to the line, by which time the server has gone on (prom-client, the search index),
// and on a loaded machine that lag is tens of ms. Each BIN (a checkout's bin/hldp.js, over its own WORK with a warm
// cache: run serve-ready.ts once first) is run in turn, ROUNDS times, under the caller's `nice`.
// Usage: npx tsx bench/scan/listen-cpu.ts REPO ROUNDS BIN:WORK [BIN:WORK]...
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { usage } from '../usage.js';

const [repo, rounds, ...sides] = process.argv.slice(2) as [string, string, ...string[]];
if (!repo || !rounds || sides.length === 0) usage('npx tsx bench/scan/listen-cpu.ts REPO ROUNDS BIN:WORK [BIN:WORK]...');
const preload = `const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  const written = write(chunk, ...rest);
  if (/ at http:\\/\\/[\\d.:]+\\n/.test(String(chunk))) { const used = process.cpuUsage(); write('listen-cpu ' + (used.user + used.system) / 1e6 + ' ' + process.uptime() + '\\n'); process.exit(0); }
  return written;
};`;
const once = (bin: string, work: string): Promise<{ cpu_s: number; s: number }> =>
  new Promise((resolve, reject) => {
    const env = { ...process.env, HLDP_CACHE_DIR: `${work}/cache`, HLDP_DATA_DIR: `${work}/data`, HLDP_WORKSPACE: work, HLDP_LOG_LEVEL: 'warn' };
    const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, bin, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    child.once('exit', () => {
      const found = /listen-cpu (\S+) (\S+)/.exec(stderr);
      if (found) resolve({ cpu_s: Number(found[1]), s: Number(found[2]) });
      else reject(new Error(stderr));
    });
  });
const round = (value: number): number => Math.round(value * 1000) / 1000;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results = new Map<string, Array<{ cpu_s: number; s: number }>>(sides.map((side) => [side, []]));
const loadBefore = loadavg().map((x) => Math.round(x * 10) / 10);
for (let run = 0; run < Number(rounds); run++) {
  for (const side of sides) {
    const [bin, work] = side.split(':') as [string, string];
    results.get(side)!.push(await once(bin, work));
  }
}
const summary = [...results].map(([side, runs]) => ({ side, cpu_s: runs.map((r) => round(r.cpu_s)), median_cpu_s: round(median(runs.map((r) => r.cpu_s))), median_wall_s: round(median(runs.map((r) => r.s))) }));
console.log(JSON.stringify({ repo, load_before: loadBefore, load_after: loadavg().map((x) => Math.round(x * 10) / 10), summary, goal: 'CPU until listening ≤ 1 s at 100,000 tools (issue #18)' }));
