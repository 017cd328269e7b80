// The longest /healthz wait of a real `hldp serve` while one call's answer is huge, and that server's CPU for it.
// A shell tool prints `--bytes` of NULs (each `\u0000` in JSON: 16 MB is a 96 MB receipt text) or of `x`
// (`--char x`), under a cap that keeps it whole; /healthz is polled every 10 ms from this process while the call runs
// and its answer is read (`--poll-ms 0`: not polled, for the CPU and wall of the call alone). With `--before DIR` (a worktree of the code before, its dist/ built) the two are
// alternated, `--runs` pairs, and printed side by side. `--get`: the same polling while `GET /v1/receipts/:id` of that
// receipt is read (get_longest_wait_ms, get_ms, get_server_cpu_ms). `--postgres`: the store is PostgreSQL, a throwaway
// cluster (fsync on) made as the tests make theirs, a new database for each run (the server CPU is the gateway's alone).
// Usage: npx tsx bench/store/huge-receipt.ts [--bytes 16000000] [--char nul|x] [--runs 3] [--before /work/wt-base] [--get] [--postgres]
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { startPostgres } from '../../test/helpers/postgres.js';
import { alternate, cpuTicks, healthzMs, pollHealthz, serveGateway, stopProcess } from './served-gateway.js';
import { benchFolder } from '../work-folder.js';

const { values } = parseArgs({ options: { bytes: { type: 'string', default: '16000000' }, char: { type: 'string', default: 'nul' }, runs: { type: 'string', default: '3' }, before: { type: 'string' }, 'poll-ms': { type: 'string', default: '10' }, profile: { type: 'string' }, get: { type: 'boolean', default: false }, postgres: { type: 'boolean', default: false } } });
const cluster = values.postgres ? await startPostgres({ durable: true }) : undefined;
const pollMs = Number(values['poll-ms']);
const bytes = Number(values.bytes);
const runs = Number(values.runs);
const sides = [{ name: 'this', bin: resolve('bin/hldp.js') }, ...(values.before ? [{ name: 'before', bin: resolve(values.before, 'bin/hldp.js') }] : [])];
const script = values.char === 'x' ? `head -c ${bytes} /dev/zero | tr '\\0' x` : `head -c ${bytes} /dev/zero`;

const toolYaml = `name: huge
display: huge
intent: prints a huge output
method: exec
executor: shell
params_schema: {}
shell: { script: "${script}" }
constraints: { timeout_ms: 600000, max_output_bytes: ${Math.max(65_536, bytes + 1024)} }
author: BENCH-001
created: 2026-12-04
why: the benchmark needs a huge answer
`;

type Get = { get_longest_wait_ms: number; get_ms: number; get_server_cpu_ms: number; get_bytes: number };
async function once(bin: string): Promise<{ longest_wait_ms: number; call_ms: number; server_cpu_ms: number; answer_bytes: number; ok: boolean; cut_bytes: number; stored: boolean; polls: number } & Partial<Get>> {
  const home = benchFolder('hldp-huge-receipt-');
  await mkdir(join(home, 'repo/tools/huge'), { recursive: true });
  await mkdir(join(home, 'ws'));
  await writeFile(join(home, 'repo/tools/huge/TOOL.hdlp'), toolYaml);
  const storeUrl = await cluster?.createDatabase('hldp_huge');
  const { child, url } = await serveGateway(bin, home, {
    storeUrl,
    env: { HLDP_MAX_OUTPUT_BYTES: String(Math.max(16 * 1024 * 1024, bytes + 1024)) },
    nodeArgs: values.profile ? ['--cpu-prof', '--cpu-prof-interval', '500', '--cpu-prof-dir', values.profile] : [],
  });
  let stoppedServer: Promise<unknown> | undefined;
  try {
    await healthzMs(url);
    const polling = pollHealthz(url, pollMs);
    const cpuBefore = cpuTicks(child.pid!);
    const started = performance.now();
    const response = await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'huge', params: {} }) });
    // read as it comes; parsed once the polling stopped (this process parsing it would hold up its own polling)
    const chunks: Buffer[] = [];
    for await (const chunk of response.body!) chunks.push(Buffer.from(chunk as Uint8Array));
    const callMs = performance.now() - started;
    const cpu = (cpuTicks(child.pid!) - cpuBefore) * 10;
    const { longest, polls } = await polling.stop();
    const text = Buffer.concat(chunks).toString();
    const receipt = JSON.parse(text) as { ok: boolean; cut_bytes: number; id: string; error: string | null };
    let get: Get | undefined;
    if (values.get) {
      // the same polling while the receipt is fetched whole
      const getPolling = pollHealthz(url, pollMs);
      const getCpu = cpuTicks(child.pid!);
      const getStarted = performance.now();
      let getBytes = 0;
      for await (const chunk of (await fetch(`${url}/v1/receipts/${receipt.id}`)).body!) getBytes += (chunk as Uint8Array).byteLength;
      const getMs = performance.now() - getStarted;
      const getServerCpu = (cpuTicks(child.pid!) - getCpu) * 10;
      get = { get_longest_wait_ms: Math.round((await getPolling.stop()).longest), get_ms: Math.round(getMs), get_server_cpu_ms: getServerCpu, get_bytes: getBytes };
    }
    // read from the store once the server stopped
    stoppedServer = stopProcess(child);
    await stoppedServer;
    const stored = (await storedBytes(home, storeUrl, receipt.id)) > bytes;
    return { longest_wait_ms: Math.round(longest), call_ms: Math.round(callMs), server_cpu_ms: cpu, answer_bytes: text.length, ok: receipt.ok, cut_bytes: receipt.cut_bytes, stored, polls, ...get };
  } finally {
    await (stoppedServer ?? stopProcess(child));
    await rm(home, { recursive: true, force: true });
  }
}

/** The stored size of a receipt's text, 0 when it is not stored. */
async function storedBytes(home: string, storeUrl: string | undefined, id: string): Promise<number> {
  if (storeUrl) {
    const sql = postgres(storeUrl, { max: 1, onnotice: () => undefined });
    const [row] = await sql<Array<{ bytes: number }>>`SELECT octet_length(body) AS bytes FROM receipts WHERE id = ${id}`;
    await sql.end();
    return row?.bytes ?? 0;
  }
  const database = new BetterSqlite3(join(home, 'data/receipts.db'), { readonly: true });
  const row = database.prepare<[string], { bytes: number }>('SELECT octet_length(body) AS bytes FROM receipts WHERE id = ?').get(id);
  database.close();
  return row?.bytes ?? 0;
}

console.log(`# huge receipt through hldp serve${cluster ? ' on PostgreSQL' : ''}: ${bytes} bytes of ${values.char}, ${runs} run(s) a side, alternated; load ${loadavg().map((load) => load.toFixed(1)).join(' ')} on ${cpus().length} cores`);
const results = await alternate(sides, runs, once);
type Key = 'longest_wait_ms' | 'server_cpu_ms' | 'call_ms' | keyof Get;
const summary = (name: string, key: Key): string => results.get(name)!.map((result) => result[key]).join(' / ');
console.log(`| measure | ${sides.map((side) => side.name).join(' | ')} |${sides.length === 2 ? ' ratio (this ÷ before, medians) |' : ''}`);
for (const key of ['longest_wait_ms', 'call_ms', 'server_cpu_ms', ...(values.get ? (['get_longest_wait_ms', 'get_ms', 'get_server_cpu_ms'] as const) : [])] as const) {
  const median = (name: string): number => [...results.get(name)!.map((result) => result[key] ?? 0)].sort((a, b) => a - b)[Math.floor(runs / 2)]!;
  console.log(`| ${key} | ${sides.map((side) => summary(side.name, key)).join(' | ')} |${sides.length === 2 ? ` ${(median('this') / median('before')).toFixed(2)} |` : ''}`);
}
console.log(`# load after: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
await cluster?.stop();
