// How long a real `hldp serve` holds its event loop while it reads a log of large receipts: every page of
// `GET /v1/receipts?limit=1000` (followed by next_offset to the end), then one `GET /v1/receipts/verify`. The store is
// filled first (`--count` receipts of `--bytes` of output each, `x`), then each side serves a copy of it (SQLite) or
// the same database (PostgreSQL, `--postgres`: a throwaway durable cluster). Measured per phase: the server's own
// event-loop delay (monitorEventLoopDelay in a preload, read and reset through SIGUSR2), the longest `/healthz` wait
// seen by this process polling every `--poll-ms` (0: not polled, for the CPU of the reads alone), the server's CPU (`/proc/PID/stat`, every thread), and its peak RSS
// (VmHWM) after the phase. With `--before DIR` (a `git archive` of the code before, its dist/ built) the sides alternate.
// Usage: npx tsx bench/store/receipt-reads.ts [--count 100] [--bytes 1000000] [--runs 2] [--before /tmp/before] [--postgres]
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../../src/store/index.js';
import { makeReceipt } from '../../test/store/support.js';
import { startPostgres } from '../../test/helpers/postgres.js';
import { alternate, cpuTicks, healthzMs, pollHealthz, serveGateway, stopProcess } from './served-gateway.js';
import { benchFolder } from '../work-folder.js';

const { values } = parseArgs({ options: { count: { type: 'string', default: '100' }, bytes: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '2' }, before: { type: 'string' }, 'poll-ms': { type: 'string', default: '5' }, postgres: { type: 'boolean', default: false } } });
const count = Number(values.count);
const bytes = Number(values.bytes);
const runs = Number(values.runs);
const pollMs = Number(values['poll-ms']);
const sides = [{ name: 'this', bin: resolve('bin/hldp.js') }, ...(values.before ? [{ name: 'before', bin: resolve(values.before, 'bin/hldp.js') }] : [])];
const cluster = values.postgres ? await startPostgres({ durable: true }) : undefined;

const work = benchFolder('hldp-receipt-reads-');
const preload = join(work, 'loop-delay.cjs');
await writeFile(preload, `const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  const histogram = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    require('node:fs').writeFileSync(process.env.LOOP_DELAY_FILE, JSON.stringify({ max: histogram.max / 1e6, p99: histogram.percentile(99) / 1e6 }));
    histogram.reset();
  });
}
`);

// the store every side reads: filled once, by this code
const seed = join(work, 'seed');
await mkdir(join(seed, 'repo/tools/small'), { recursive: true });
await writeFile(join(seed, 'repo/tools/small/TOOL.hdlp'), 'name: small\ndisplay: small\nintent: prints a word\nmethod: exec\nexecutor: shell\nparams_schema: {}\nshell: { argv: [echo, small] }\nauthor: BENCH-001\ncreated: 2026-12-05\nwhy: the server needs a tool\n');
const storeUrl = await cluster?.createDatabase('hldp_reads');
const store = await openStore({ sqlitePath: join(seed, 'data/receipts.db'), ...(storeUrl ? { url: storeUrl } : {}) });
const output = 'x'.repeat(bytes);
const started = Date.parse('2026-12-01T00:00:00.000Z');
for (let at = 0; at < count; at += 1) {
  const when = new Date(started + at * 1000).toISOString();
  await store.receipts.save(makeReceipt({ id: `call-${String(at).padStart(6, '0')}`, output, output_bytes: bytes, started_at: when, finished_at: when }));
}
await store.close();

const peakRssMb = (pid: number): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

interface Phase { loop_max_ms: number; healthz_longest_ms: number; cpu_ms: number; wall_ms: number; peak_rss_mb: number; result: string }

/** Runs `read` while /healthz is polled; the server's loop delay over it, read through SIGUSR2. */
async function phase(child: ChildProcess, url: string, delayFile: string, read: () => Promise<string>): Promise<Phase> {
  await healthzMs(url);
  const delay = async (): Promise<{ max: number }> => {
    await rm(delayFile, { force: true });
    child.kill('SIGUSR2');
    for (;;) {
      try {
        return JSON.parse(await readFile(delayFile, 'utf8')) as { max: number };
      } catch {
        await new Promise((resolveTimer) => setTimeout(resolveTimer, 5));
      }
    }
  };
  await delay();
  const polling = pollHealthz(url, pollMs);
  const cpu = cpuTicks(child.pid!);
  const at = performance.now();
  const result = await read();
  const wall = performance.now() - at;
  const cpuMs = (cpuTicks(child.pid!) - cpu) * 10;
  const { longest } = await polling.stop();
  const { max } = await delay();
  return { loop_max_ms: Math.round(max), healthz_longest_ms: Math.round(longest), cpu_ms: cpuMs, wall_ms: Math.round(wall), peak_rss_mb: Math.round(peakRssMb(child.pid!)), result };
}

async function once(bin: string): Promise<{ pages: Phase; verify: Phase }> {
  const home = await mkdtemp(join(work, 'side-'));
  await cp(seed, home, { recursive: true });
  await mkdir(join(home, 'ws'), { recursive: true });
  const delayFile = join(home, 'loop-delay.json');
  const { child, url } = await serveGateway(bin, home, { storeUrl, env: { NODE_OPTIONS: `--require ${preload}`, LOOP_DELAY_FILE: delayFile } });
  try {
    const pages = await phase(child, url, delayFile, async () => {
      const ids: string[] = [];
      for (let next: number | null = 0; next !== null; ) {
        const page = (await (await fetch(`${url}/v1/receipts?limit=1000&offset=${next}`)).json()) as { receipts: Array<{ id: string; output: string }>; next_offset: number | null };
        for (const receipt of page.receipts) if (receipt.output.length !== bytes) throw new Error(`receipt ${receipt.id} came back with ${receipt.output.length} characters of output`);
        ids.push(...page.receipts.map((receipt) => receipt.id));
        next = page.next_offset;
      }
      return `${ids.length} receipts, ${new Set(ids).size} distinct`;
    });
    const verify = await phase(child, url, delayFile, async () => JSON.stringify(await (await fetch(`${url}/v1/receipts/verify`)).json()).slice(0, 40));
    return { pages, verify };
  } finally {
    await stopProcess(child);
    await rm(home, { recursive: true, force: true });
  }
}

console.log(`# receipt reads through hldp serve${cluster ? ' on PostgreSQL' : ' on SQLite'}: ${count} receipts of ${bytes} bytes of output, ${runs} run(s) a side, alternated; load ${loadavg().map((load) => load.toFixed(1)).join(' ')} on ${cpus().length} cores`);
const results = await alternate(sides, runs, once);
console.log(`| phase: measure | ${sides.map((side) => side.name).join(' | ')} |`);
for (const name of ['pages', 'verify'] as const) {
  for (const key of ['loop_max_ms', 'healthz_longest_ms', 'cpu_ms', 'wall_ms', 'peak_rss_mb'] as const) {
    console.log(`| ${name}: ${key} | ${sides.map((side) => results.get(side.name)!.map((result) => result[name][key]).join(' / ')).join(' | ')} |`);
  }
}
console.log(`# load after: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
await cluster?.stop();
await rm(work, { recursive: true, force: true });
