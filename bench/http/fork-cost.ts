// What a spawn costs the process that spawns, by that process's size: whether spawning tool processes from a small
// helper process instead of the (large) server would pay. For each size, a fresh Node process grows its resident
// memory to that size (a JS heap of small objects, as a server's index is, and touched Buffers), then spawns `true`
// one at a time and times the synchronous part of child_process.spawn (fork or clone, and the child's exec, which
// libuv waits for): the time its event loop is held. Prints one JSON document; medians and p90 per size.
// Usage: npx tsx bench/http/fork-cost.ts [-- --sizes 50,250,500 --spawns 300]
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '50,250,500' }, spawns: { type: 'string', default: '300' }, child: { type: 'string' } } });

if (values.child !== undefined) {
  // the measured process: grow to the size, then spawn
  const target = Number(values.child) * 1024 * 1024;
  const kept: unknown[] = [];
  // half as JS objects (many pages of the V8 heap), half as Buffers, every page written
  while (process.memoryUsage().rss < target / 2) kept.push(Array.from({ length: 1000 }, (_, index) => ({ index, name: `tool-${index}` })));
  while (process.memoryUsage().rss < target) kept.push(Buffer.alloc(4 * 1024 * 1024, 1));
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let run = 0; run < Number(values.spawns); run += 1) {
    const start = process.hrtime.bigint();
    const child = spawn('true', [], { stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    await new Promise((resolve) => child.once('close', resolve));
  }
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  const at = (p: number): number => +times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(3);
  process.stdout.write(JSON.stringify({ rss_mib: Math.round(process.memoryUsage().rss / 1024 / 1024), spawn_p50_ms: at(0.5), spawn_p90_ms: at(0.9), cpu_ms_per_spawn: +((cpu.user + cpu.system) / 1000 / times.length).toFixed(3), kept: kept.length > 0 }));
} else {
  const sizes = values.sizes.split(',').map(Number);
  const rows: Array<Record<string, unknown>> = [];
  const loadBefore = loadavg().map((value) => +value.toFixed(2));
  // twice over, interleaved, so that drift in the machine's load hits every size alike
  for (let pass = 0; pass < 2; pass += 1) {
    for (const size of sizes) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', String(size), '--spawns', values.spawns], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (run.status !== 0) throw new Error(run.stderr);
      rows.push({ pass, size_mib: size, ...(JSON.parse(run.stdout) as object) });
    }
  }
  const smallest = rows.filter((row) => row.size_mib === sizes[0]);
  const p50 = (size: number): number => {
    const own = rows.filter((row) => row.size_mib === size).map((row) => row.spawn_p50_ms as number);
    return own.reduce((a, b) => a + b, 0) / own.length;
  };
  const ratios = Object.fromEntries(sizes.map((size) => [`${size}_mib_vs_${sizes[0]}`, +(p50(size) / p50(sizes[0]!)).toFixed(2)]));
  console.log(JSON.stringify({ benchmark: 'fork-cost', node: process.version, cpus: cpus().length, load_average_before: loadBefore, load_average_after: loadavg().map((value) => +value.toFixed(2)), spawns_per_size: Number(values.spawns), rows, spawn_p50_ratio: ratios, smallest_runs: smallest.length }, null, 2));
}
