// How long a real `hldp serve` holds its event loop while a person reads its console over a log of large receipts:
// phase "list" follows the calls list (`/console/failures?status=all`, then each Older → of `/console/failures/rows`)
// to the end, phase "search" is one search (`q=` a text no call holds: the newest 16 MiB of calls scanned), phase
// "view" opens each of the newest `--views` calls' pages (`/console/receipts/:id`). The store, the preload and the
// measures are those of receipt-reads.ts (loop delay through SIGUSR2, the longest /healthz polled every `--poll-ms`,
// CPU of every thread, peak RSS); with `--before DIR` the sides alternate.
// Usage: npx tsx bench/store/console-reads.ts [--count 24] [--bytes 3000000] [--views 4] [--runs 2] [--before /tmp/before] [--postgres]
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../../src/store/index.js';
import { makeReceipt } from '../../test/store/support.js';
import { startPostgres } from '../../test/helpers/postgres.js';
import { benchFolder } from '../work-folder.js';

const { values } = parseArgs({ options: { count: { type: 'string', default: '24' }, bytes: { type: 'string', default: '3000000' }, views: { type: 'string', default: '4' }, runs: { type: 'string', default: '2' }, before: { type: 'string' }, 'poll-ms': { type: 'string', default: '5' }, postgres: { type: 'boolean', default: false } } });
const count = Number(values.count);
const bytes = Number(values.bytes);
const runs = Number(values.runs);
const views = Number(values.views);
const pollMs = Number(values['poll-ms']);
const sides = [{ name: 'this', bin: resolve('bin/hldp.js') }, ...(values.before ? [{ name: 'before', bin: resolve(values.before, 'bin/hldp.js') }] : [])];
const cluster = values.postgres ? await startPostgres({ durable: true }) : undefined;

const work = benchFolder('hldp-console-reads-');
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

const ticks = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const peakRssMb = (pid: number): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function stop(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  return new Promise((resolveExit) => child.once('exit', resolveExit));
}

async function serve(bin: string, home: string, delayFile: string): Promise<{ child: ChildProcess; url: string }> {
  const env = { ...process.env, ...(storeUrl ? { HLDP_STORE_URL: storeUrl } : {}), NODE_OPTIONS: `--require ${preload}`, LOOP_DELAY_FILE: delayFile, HLDP_CACHE_DIR: join(home, 'cache'), HLDP_DATA_DIR: join(home, 'data'), HLDP_WORKSPACE: join(home, 'ws'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'off' };
  const child = spawn(process.execPath, [bin, 'serve', '--repo', join(home, 'repo'), '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / at (http:\/\/[\d.:]+)\n/.exec(stderr);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { child, url };
}

interface Phase { loop_max_ms: number; healthz_longest_ms: number; cpu_ms: number; wall_ms: number; peak_rss_mb: number; result: string }

/** Runs `read` while /healthz is polled; the server's loop delay over it, read through SIGUSR2. */
async function phase(child: ChildProcess, url: string, delayFile: string, read: () => Promise<string>): Promise<Phase> {
  const healthz = async (): Promise<number> => {
    const at = performance.now();
    await (await fetch(`${url}/healthz`)).text();
    return performance.now() - at;
  };
  await healthz();
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
  let done = false;
  let longest = 0;
  const polling = (async () => {
    while (!done && pollMs > 0) {
      longest = Math.max(longest, await healthz());
      await new Promise((resolveTimer) => setTimeout(resolveTimer, pollMs));
    }
  })();
  const cpu = ticks(child.pid!);
  const at = performance.now();
  const result = await read();
  const wall = performance.now() - at;
  const cpuMs = (ticks(child.pid!) - cpu) * 10;
  done = true;
  await polling;
  const { max } = await delay();
  return { loop_max_ms: Math.round(max), healthz_longest_ms: Math.round(longest), cpu_ms: cpuMs, wall_ms: Math.round(wall), peak_rss_mb: Math.round(peakRssMb(child.pid!)), result };
}

/** Signs in to the console of a gateway with no credentials (its sign-in button): the cookie, `name=value`. */
async function signIn(url: string): Promise<string> {
  const response = await fetch(`${url}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url }, body: '' });
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

async function once(bin: string): Promise<{ list: Phase; search: Phase; view: Phase }> {
  const home = await mkdtemp(join(work, 'side-'));
  await cp(seed, home, { recursive: true });
  await mkdir(join(home, 'ws'), { recursive: true });
  const delayFile = join(home, 'loop-delay.json');
  const { child, url } = await serve(bin, home, delayFile);
  const cookie = await signIn(url);
  const get = async (path: string): Promise<string> => {
    const response = await fetch(`${url}${path}`, { headers: { cookie } });
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    return response.text();
  };
  try {
    const list = await phase(child, url, delayFile, async () => {
      const ids: string[] = [];
      let page = await get('/console/failures?status=all');
      for (;;) {
        ids.push(...[...page.matchAll(/data-receipt="([^"]+)"/g)].map((match) => match[1]!));
        const next = /href="\/console\/failures\?([^"]*)">Older →/.exec(page)?.[1];
        if (next === undefined) break;
        page = await get(`/console/failures/rows?${next.replaceAll('&amp;', '&')}`);
      }
      if (ids.length !== count || new Set(ids).size !== count) throw new Error(`the list showed ${ids.length} calls, ${new Set(ids).size} distinct, of ${count}`);
      return `${ids.length} calls listed`;
    });
    const search = await phase(child, url, delayFile, async () => {
      const page = await get('/console/failures?status=all&q=no-call-holds-this');
      if (!page.includes('No calls match.')) throw new Error('the search found a call');
      return 'searched, none found';
    });
    const view = await phase(child, url, delayFile, async () => {
      for (let at = count - 1; at >= Math.max(0, count - views); at -= 1) {
        const page = await get(`/console/receipts/call-${String(at).padStart(6, '0')}`);
        if (!page.includes('<pre id="output">')) throw new Error(`call ${at}'s page shows no output`);
      }
      return `${Math.min(views, count)} views`;
    });
    return { list, search, view };
  } finally {
    await stop(child);
    await rm(home, { recursive: true, force: true });
  }
}

console.log(`# the console of hldp serve${cluster ? ' on PostgreSQL' : ' on SQLite'}: ${count} receipts of ${bytes} bytes of output, ${runs} run(s) a side, alternated; load ${loadavg().map((load) => load.toFixed(1)).join(' ')} on ${cpus().length} cores`);
const results = new Map<string, Array<Awaited<ReturnType<typeof once>>>>(sides.map((side) => [side.name, []]));
for (let run = 0; run < runs; run += 1) {
  for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
    const result = await once(side.bin);
    results.get(side.name)!.push(result);
    console.log(JSON.stringify({ side: side.name, run, ...result }));
  }
}
console.log(`| phase: measure | ${sides.map((side) => side.name).join(' | ')} |`);
for (const name of ['list', 'search', 'view'] as const) {
  for (const key of ['healthz_longest_ms', 'loop_max_ms', 'cpu_ms', 'wall_ms', 'peak_rss_mb'] as const) {
    console.log(`| ${name}: ${key} | ${sides.map((side) => results.get(side.name)!.map((result) => result[name][key]).join(' / ')).join(' | ')} |`);
  }
}
console.log(`# load after: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
await cluster?.stop();
await rm(work, { recursive: true, force: true });
