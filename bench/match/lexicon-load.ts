// What the first Chinese requests to a server wait for the Chinese-English dictionary (CC-CEDICT, ~1 s
// to read): `npx tsx bench/match/lexicon-load.ts [--runs N] [--before DIR]`; prints JSON on stdout.
// Each run starts a real `hldp serve` (node bin/hldp.js, the built dist/) over the plugin-style registry
// of bench/match/data written as TOOL.hdlp folders (English definitions, no Chinese examples: nothing
// reads the dictionary at start); once it listens, its Chinese requests are POSTed to /v1/match one every
// 20 ms (after one English request), and GET /healthz every 5 ms, until 10 answers in a row are complete (no `incomplete`). The
// longest /healthz wait is what any request waited behind the matcher. `--before DIR` runs the same with
// the gateway of DIR (a built checkout, e.g. `git archive main` unpacked, node_modules linked, `npm run
// build`), alternated with this one, run for run.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { legalNames, readBenchData } from './bench-data.js';
import { writeBenchRepository } from './bench-repository.js';
import { percentile } from './metrics.js';

const DATA = fileURLToPath(new URL('./data/plugin-registry.json', import.meta.url));
const REQUEST_EVERY_MS = 20;
const PROBE_EVERY_MS = 5;
const COMPLETE_IN_A_ROW = 10;
// a run that never sees complete answers stops here
const MAX_REQUESTS = 1000;

interface RunReport {
  /** the longest a match took (wall, over HTTP), and which one (1 = the first) */
  longest_match_ms: number;
  longest_match_at: number;
  first_match_ms: number;
  match_p50_ms: number;
  /** the longest a /healthz probe waited: what any request waited behind the matcher */
  longest_probe_ms: number;
  probe_p99_ms: number;
  /** answers marked incomplete, and when complete answers began after the first request */
  incomplete_answers: number;
  complete_after_ms: number;
  /** the server's CPU (all threads) and peak RSS over the run, from /proc */
  server_cpu_ms: number;
  server_rss_mb_before: number;
  server_rss_mb_after: number;
}

async function runOnce(root: string, repo: string, requests: string[]): Promise<RunReport> {
  const home = await mkdtemp(join(tmpdir(), 'hldp-lexicon-load-'));
  const env = { ...process.env, HLDP_CACHE_DIR: join(home, 'cache'), HLDP_DATA_DIR: join(home, 'data'), HLDP_WORKSPACE: home, HLDP_LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, [join(root, 'bin/hldp.js'), 'serve', '--port', '0', '--repo', repo], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise<string>((done, fail) => {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = / at (http:\/\/[\d.:]+)\n/.exec(stderr);
        if (found) done(found[1]!);
      });
      child.once('exit', (code) => fail(new Error(`hldp serve exited ${code}: ${stderr}`)));
    });
    // an English request first, so that the first Chinese one pays for the dictionary alone, not for the first match
    await fetch(`${url}/v1/match`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ intent: 'find a recipe for dinner' }) }).then((response) => response.arrayBuffer());
    const cpuBefore = processCpuMs(child.pid!);
    const rssBefore = processRssMb(child.pid!);
    const probes: number[] = [];
    let probing = true;
    const probeLoop = (async () => {
      while (probing) {
        const started = performance.now();
        await fetch(`${url}/healthz`).then((response) => response.arrayBuffer());
        probes.push(performance.now() - started);
        await sleep(PROBE_EVERY_MS);
      }
    })();
    const times: number[] = [];
    let incomplete = 0;
    let inARow = 0;
    let completeAfter = Number.NaN;
    const firstAt = performance.now();
    for (let asked = 0; inARow < COMPLETE_IN_A_ROW && asked < MAX_REQUESTS; asked++) {
      const started = performance.now();
      const response = await fetch(`${url}/v1/match`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ intent: requests[asked % requests.length] }) });
      const answer = (await response.json()) as { incomplete?: string };
      times.push(performance.now() - started);
      if (answer.incomplete !== undefined) {
        incomplete += 1;
        inARow = 0;
        completeAfter = Number.NaN;
      } else {
        // complete answers began after the last incomplete one (a request of function words alone is never incomplete)
        if (Number.isNaN(completeAfter)) completeAfter = performance.now() - firstAt;
        inARow += 1;
      }
      await sleep(REQUEST_EVERY_MS);
    }
    probing = false;
    await probeLoop;
    const longest = Math.max(...times);
    return {
      longest_match_ms: round(longest),
      longest_match_at: times.indexOf(longest) + 1,
      first_match_ms: round(times[0]!),
      match_p50_ms: round(percentile(times, 50)),
      longest_probe_ms: round(Math.max(...probes)),
      probe_p99_ms: round(percentile(probes, 99)),
      incomplete_answers: incomplete,
      complete_after_ms: Math.round(completeAfter),
      server_cpu_ms: Math.round(processCpuMs(child.pid!) - cpuBefore),
      server_rss_mb_before: rssBefore,
      server_rss_mb_after: processRssMb(child.pid!),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done(undefined)));
    await rm(home, { recursive: true, force: true });
  }
}

// utime + stime of all the process's threads, from /proc (clock ticks of 10 ms)
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function processRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'))!;
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, before: { type: 'string' } } });
  const data = await readBenchData(DATA);
  const repo = await writeBenchRepository(data.tools!, legalNames(data.tools!));
  const requests = data.queries.filter((query) => query.lang === 'zh').map((query) => query.text);
  const here = fileURLToPath(new URL('../../', import.meta.url));
  const roots: Record<string, string> = { after: here, ...(values.before ? { before: resolve(values.before) } : {}) };
  const reports: Record<string, RunReport[]> = Object.fromEntries(Object.keys(roots).map((name) => [name, []]));
  const load = [loadavg()[0]!];
  try {
    for (let run = 0; run < Number(values.runs); run++) {
      for (const [name, root] of Object.entries(roots)) {
        const report = await runOnce(root, repo, requests);
        reports[name]!.push(report);
        process.stderr.write(`lexicon-load ${name} run ${run + 1}: ${JSON.stringify(report)}\n`);
      }
    }
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
  load.push(loadavg()[0]!);
  const summary = Object.fromEntries(
    Object.entries(reports).map(([name, list]) => [
      name,
      {
        runs: list.length,
        median: Object.fromEntries(Object.keys(list[0]!).map((key) => [key, percentile(list.map((report) => report[key as keyof RunReport]), 50)])),
        worst_match_ms: Math.max(...list.map((report) => report.longest_match_ms)),
        worst_probe_ms: Math.max(...list.map((report) => report.longest_probe_ms)),
      },
    ]),
  );
  process.stdout.write(`${JSON.stringify({ started: new Date().toISOString(), load_average_1m: load.map((value) => Math.round(value * 100) / 100), requests_every_ms: REQUEST_EVERY_MS, summary }, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
