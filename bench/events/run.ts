// bench:events — 200 SSE subscribers on a real `hldp serve` while 100 calls/s are stored: none lost, delivery p99
// (receipt stored → event received), and the SSE overhead on POST /v1/call throughput as a ratio (same run, with and
// without subscribers). Usage: npm run bench:events -- [--subscribers 200] [--rate 100] [--seconds 10] [--calls 1000]
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Agent, request } from 'undici';

const { values } = parseArgs({ options: { subscribers: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' }, calls: { type: 'string' }, concurrency: { type: 'string' }, workers: { type: 'string' } } });
const SUBSCRIBERS = Number(values.subscribers ?? 200);
const RATE = Number(values.rate ?? 100);
const SECONDS = Number(values.seconds ?? 10);
const CALLS = Number(values.calls ?? 1000);
const CONCURRENCY = Number(values.concurrency ?? 16);
const WORKERS = Number(values.workers ?? 4);
const HLDP = new URL('../../bin/hldp.js', import.meta.url).pathname;

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function startServer(root: string): Promise<{ url: string; child: ChildProcess }> {
  const repo = join(root, 'repo');
  await mkdir(join(repo, 'tools', 'nop'), { recursive: true });
  await writeFile(join(repo, 'tools', 'nop', 'TOOL.hdlp'), 'name: nop\ndisplay: nop\nintent: does nothing\nmethod: run\nexecutor: shell\nshell: { argv: ["true"] }\nparams_schema: {}\nauthor: bench\ncreated: 2026-12-01\nwhy: the cheapest call, so that what is measured is the gateway\n');
  const child = spawn(process.execPath, [HLDP, 'serve', '--port', '0', '--repo', repo], {
    env: { ...process.env, HLDP_DATA_DIR: join(root, 'data'), HLDP_CACHE_DIR: join(root, 'cache'), HLDP_WORKSPACE: root, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '3600000' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = / at (http:\/\/[\d.:]+)\n/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
  });
  return { url, child };
}

/** CPU seconds the server process has used (user + system), from /proc: what SSE costs the server, whatever the machine's load. */
function serverCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat; after the command's ')' they are at 11 and 12, in clock ticks (100 a second)
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const dispatcher = new Agent({ connections: 256, pipelining: 1 });

async function call(url: string): Promise<string> {
  const response = await request(`${url}/v1/call`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body: '{"tool":"nop","params":{}}' });
  const body = (await response.body.json()) as { id?: string; ok?: boolean };
  if (response.statusCode !== 200 || !body.ok) throw new Error(`call failed: ${response.statusCode} ${JSON.stringify(body)}`);
  return body.id!;
}

/** Closed loop: `total` calls from `concurrency` clients; calls per second. */
async function throughput(url: string, total: number, concurrency: number): Promise<number> {
  let sent = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (sent < total) {
      sent += 1;
      await call(url);
    }
  }));
  return total / ((performance.now() - start) / 1000);
}

/** Starts subscriber threads holding `total` SSE subscribers between them; resolves once all listen. */
async function subscriberThreads(url: string, total: number, threads: number): Promise<Worker[]> {
  const workers = Array.from({ length: threads }, (_item, index) => {
    const count = Math.floor(total / threads) + (index < total % threads ? 1 : 0);
    return new Worker(new URL('./subscribers.mjs', import.meta.url), { workerData: { url, count } });
  });
  await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('message', resolve))));
  return workers;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'hldp-bench-events-'));
  const server = await startServer(root);
  const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
  try {
    await throughput(server.url, 100, CONCURRENCY);
    const loadBefore = load();
    const cpu0 = serverCpuSeconds(server.child.pid!);
    const without = await throughput(server.url, CALLS, CONCURRENCY);
    const cpuWithout = (serverCpuSeconds(server.child.pid!) - cpu0) / CALLS;
    const listening = await subscriberThreads(server.url, SUBSCRIBERS, WORKERS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpu1 = serverCpuSeconds(server.child.pid!);
    const withSubscribers = await throughput(server.url, CALLS, CONCURRENCY);
    const cpuWith = (serverCpuSeconds(server.child.pid!) - cpu1) / CALLS;
    await Promise.all(listening.map((worker) => worker.terminate()));
    await new Promise((resolve) => setTimeout(resolve, 500));
    // the baseline again, after the subscribers left, to bracket drift on a shared machine
    const without2 = await throughput(server.url, CALLS, CONCURRENCY);
    // the subscribers of the delivery measurement live in worker threads (a few per thread), off the load generator's loop
    const workers = await subscriberThreads(server.url, SUBSCRIBERS, WORKERS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // open loop: one call every 1000/RATE ms for SECONDS, whatever the answers do
    const ids: Array<Promise<string>> = [];
    const start = performance.now();
    for (let index = 0; index < RATE * SECONDS; index += 1) {
      const due = start + (index * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      ids.push(call(server.url));
    }
    const receipts = await Promise.all(ids);
    const achieved = receipts.length / ((performance.now() - start) / 1000);
    // the last events are still on their way when the last answer arrives
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const results = await Promise.all(workers.map((worker) => new Promise<{ lost: number; outOfOrder: number; latencies: number[] }>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage({ receipts });
    })));
    await Promise.all(workers.map((worker) => worker.terminate()));
    const lost = results.reduce((sum, result) => sum + result.lost, 0);
    const outOfOrder = results.reduce((sum, result) => sum + result.outOfOrder, 0);
    const latencies = results.flatMap((result) => result.latencies);
    latencies.sort((a, b) => a - b);
    const baseline = (without + without2) / 2;
    console.log(JSON.stringify({
      date: new Date().toISOString(), load_before: loadBefore, load_after: load(),
      throughput: { concurrency: CONCURRENCY, calls: CALLS, without_subscribers: Math.round(without), without_subscribers_after: Math.round(without2), with_subscribers: Math.round(withSubscribers), subscribers: SUBSCRIBERS, ratio_with_to_without: Number((withSubscribers / baseline).toFixed(3)),
        server_cpu_ms_per_call_without: Number((cpuWithout * 1000).toFixed(2)), server_cpu_ms_per_call_with: Number((cpuWith * 1000).toFixed(2)), server_cpu_ratio: Number((cpuWith / cpuWithout).toFixed(3)) },
      delivery: {
        subscribers: SUBSCRIBERS, subscriber_threads: WORKERS, rate_asked: RATE, rate_achieved: Number(achieved.toFixed(1)), calls: receipts.length, events_expected: receipts.length * SUBSCRIBERS,
        lost, out_of_order: outOfOrder, p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), max_ms: latencies.at(-1), target_p99_ms: 100,
      },
    }, null, 2));
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await dispatcher.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
