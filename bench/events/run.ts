// bench:events — 200 SSE subscribers on a real `hldp serve` while 100 calls/s are stored: none lost, delivery p99
// (receipt stored → event received), and the SSE overhead on POST /v1/call throughput as a ratio (same run, with and
// without subscribers). Usage: npm run bench:events -- [--subscribers 200] [--rate 100] [--seconds 10] [--calls 1000] [--profile DIR] [--hldp PATH]
// The measured tool is an `hldp-api` GET to a local HTTP target that answers at once: the cheapest real call (a shell
// tool spawns bubblewrap, which on 2 cores alone caps the server below 100 calls/s), so that what is measured is the
// gateway's receipt, event and SSE path. The generator and the subscribers are child processes of their own.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { benchFolder } from '../work-folder.js';

const { values } = parseArgs({ options: { subscribers: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' }, calls: { type: 'string' }, concurrency: { type: 'string' }, profile: { type: 'string' }, hldp: { type: 'string' } } });
const SUBSCRIBERS = Number(values.subscribers ?? 200);
const RATE = Number(values.rate ?? 100);
const SECONDS = Number(values.seconds ?? 10);
const CALLS = Number(values.calls ?? 1000);
const CONCURRENCY = Number(values.concurrency ?? 16);
// --profile DIR: the server writes a V8 CPU profile there when it exits (open it in Chrome's DevTools)
const PROFILE = values.profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values.profile];
// --hldp PATH: another build's bin/hldp.js (an older version, for a side-by-side run of the same harness)
const HLDP = values.hldp ?? new URL('../../bin/hldp.js', import.meta.url).pathname;

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The API the measured tool calls: answers every request at once with a few bytes. */
async function startTarget(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => response.end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function startServer(root: string, target: string): Promise<{ url: string; child: ChildProcess }> {
  const repo = join(root, 'repo');
  await mkdir(join(repo, 'tools', 'nop'), { recursive: true });
  await writeFile(join(repo, 'tools', 'nop', 'TOOL.hdlp'), 'name: nop\ndisplay: nop\nintent: does nothing\nmethod: ping\nexecutor: hldp-api\nhttp: { method: GET, path: /ping }\nparams_schema: {}\nauthor: bench\ncreated: 2026-12-01\nwhy: the cheapest call, so that what is measured is the gateway\n');
  const child = spawn(process.execPath, [...PROFILE, HLDP, 'serve', '--port', '0', '--repo', repo], {
    env: { ...process.env, HLDP_API_DEFAULT_URL: target, HLDP_DATA_DIR: join(root, 'data'), HLDP_CACHE_DIR: join(root, 'cache'), HLDP_WORKSPACE: root, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '3600000' },
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

/** CPU seconds a process (the server, the subscribers) has used (user + system), from /proc: what SSE costs the server, whatever the machine's load. */
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

/** A child process running one of this folder's scripts; its first message (or its exit) settles `first`. */
function child<T>(script: string, args: string[]): { process: ChildProcess; first: Promise<T> } {
  const started = fork(new URL(script, import.meta.url).pathname, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const first = new Promise<T>((resolve, reject) => {
    started.once('message', (message) => resolve(message as T));
    started.once('exit', (code) => reject(new Error(`${script} exited ${code} before answering`)));
  });
  return { process: started, first };
}

/** Starts a process holding `total` SSE subscribers; resolves once all listen. */
async function subscribers(url: string, total: number): Promise<ChildProcess> {
  const started = child<{ ready: boolean }>('./subscribers.mjs', [url, String(total)]);
  await started.first;
  return started.process;
}

interface Received { lost: number; outOfOrder: number; malformed: number; latencies: number[] }
interface Generated { receipts: string[]; sent_rate: number; answered_rate: number; send_lateness_p99_ms: number }

async function main(): Promise<void> {
  const root = benchFolder('hldp-bench-events-');
  const target = await startTarget();
  const server = await startServer(root, target.url);
  const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
  try {
    await throughput(server.url, 100, CONCURRENCY);
    const loadBefore = load();
    const cpu0 = serverCpuSeconds(server.child.pid!);
    const without = await throughput(server.url, CALLS, CONCURRENCY);
    const cpuWithout = (serverCpuSeconds(server.child.pid!) - cpu0) / CALLS;
    const listening = await subscribers(server.url, SUBSCRIBERS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpu1 = serverCpuSeconds(server.child.pid!);
    const withSubscribers = await throughput(server.url, CALLS, CONCURRENCY);
    const cpuWith = (serverCpuSeconds(server.child.pid!) - cpu1) / CALLS;
    listening.kill();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // the baseline again, after the subscribers left, to bracket drift on a shared machine
    const without2 = await throughput(server.url, CALLS, CONCURRENCY);
    // delivery: the subscribers and an open-loop generator (100 calls/s for 10 s, whatever the answers do), each a process
    const listeners = await subscribers(server.url, SUBSCRIBERS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loadDelivery = load();
    const cpuServer = serverCpuSeconds(server.child.pid!);
    const cpuListeners = serverCpuSeconds(listeners.pid!);
    const generated = await child<Generated>('./generator.mjs', [server.url, String(RATE), String(SECONDS)]).first;
    // what the server and the 200 subscribers' process spent while the calls came (neither does anything else then)
    const deliveryCpu = { server: serverCpuSeconds(server.child.pid!) - cpuServer, subscribers: serverCpuSeconds(listeners.pid!) - cpuListeners };
    // the last events are still on their way when the last answer arrives
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const answer = new Promise<Received>((resolve) => listeners.once('message', (message) => resolve(message as Received)));
    listeners.send({ receipts: generated.receipts });
    const { lost, outOfOrder, malformed, latencies } = await answer;
    const receipts = generated.receipts;
    latencies.sort((a, b) => a - b);
    const baseline = (without + without2) / 2;
    console.log(JSON.stringify({
      date: new Date().toISOString(), load_before: loadBefore, load_after: load(),
      throughput: { concurrency: CONCURRENCY, calls: CALLS, without_subscribers: Math.round(without), without_subscribers_after: Math.round(without2), with_subscribers: Math.round(withSubscribers), subscribers: SUBSCRIBERS, ratio_with_to_without: Number((withSubscribers / baseline).toFixed(3)),
        server_cpu_ms_per_call_without: Number((cpuWithout * 1000).toFixed(2)), server_cpu_ms_per_call_with: Number((cpuWith * 1000).toFixed(2)), server_cpu_ratio: Number((cpuWith / cpuWithout).toFixed(3)) },
      delivery: {
        load_at_start: loadDelivery, subscribers: SUBSCRIBERS, rate_asked: RATE, rate_sent: generated.sent_rate, rate_answered: generated.answered_rate, send_lateness_p99_ms: generated.send_lateness_p99_ms,
        calls: receipts.length, events_expected: receipts.length * SUBSCRIBERS, lost, out_of_order: outOfOrder, malformed,
        server_cpu_ms_per_call: Number(((deliveryCpu.server * 1000) / receipts.length).toFixed(2)), subscribers_cpu_share_of_a_core: Number((deliveryCpu.subscribers / SECONDS).toFixed(2)), p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), max_ms: latencies.at(-1), target_p99_ms: 100,
      },
    }, null, 2));
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await dispatcher.close();
    target.server.closeAllConnections();
    await new Promise((resolve) => target.server.close(resolve));
    await rm(root, { recursive: true, force: true });
  }
}

await main();
