// HTTP benchmark: POST /v1/call of a `true` shell tool against a real `hldp serve` process at concurrency 1, 16, 64,
// side by side with the executor called in-process at the same concurrency; receipts counted in the database.
// Usage: npm run bench:http [-- --requests 2000 --concurrency 1,16,64]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { Pool } from 'undici';
import { execute } from '../../src/executors/index.js';
import { scanOnce } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../../test/helpers/git.js';
import { HLDP_BIN } from '../../test/helpers/run-cli.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '1,16,64' } } });
const total = Number(values.requests);
const levels = values.concurrency.split(',').map(Number);

const temp = await makeTempDir('hldp-bench-http-');
const repo = join(temp.path, 'repo');
await writeFiles(repo, { 'tools/true-tool/TOOL.hdlp': makeToolYaml('true-tool', { executor: 'shell', method: 'run', shell: '{ argv: ["true"] }' }) });
const env = { ...process.env, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '0' };
const child = spawn(process.execPath, [HLDP_BIN, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise<string>((resolve, reject) => {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
    const match = / at (http:\/\/[\d.:]+)\n/.exec(stderr);
    if (match) resolve(match[1]!);
  });
  child.once('exit', () => reject(new Error(stderr)));
});
const tool = (await scanOnce(repo, { cacheDir: join(temp.path, 'cache') })).tools[0]!;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `count` operations at `concurrency`; returns throughput and latency percentiles. */
async function load(concurrency: number, count: number, operation: () => Promise<boolean>) {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const begin = performance.now();
        if (!(await operation())) errors++;
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { per_second: Math.round(count / seconds), p50_ms: +percentile(latencies, 50).toFixed(2), p99_ms: +percentile(latencies, 99).toFixed(2), errors };
}

const pool = new Pool(url, { connections: Math.max(...levels) });
const body = JSON.stringify({ tool: 'true-tool', params: {} });
let httpCalls = 0;
const viaHttp = async () => {
  httpCalls++;
  const response = await pool.request({ path: '/v1/call', method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const receipt = (await response.body.json()) as { ok?: boolean };
  return response.statusCode === 200 && receipt.ok === true;
};
const context = { shell: { root: temp.path } };
const inProcess = async () => (await execute(tool, {}, context)).ok;

await load(4, 50, viaHttp);
await load(4, 50, inProcess);
const results = [];
for (const concurrency of levels) {
  // alternate the two sides so that drift on a shared machine hits both alike
  const http = await load(concurrency, total, viaHttp);
  const direct = await load(concurrency, total, inProcess);
  results.push({ concurrency, requests: total, http, in_process_executor: direct, throughput_ratio: +(direct.per_second / http.per_second).toFixed(2), p50_ratio: +(http.p50_ms / direct.p50_ms).toFixed(2) });
  console.error(JSON.stringify(results.at(-1)));
}
await pool.close();
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
const database = new BetterSqlite3(join(temp.path, 'data', 'receipts.db'), { readonly: true });
const stored = (database.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
database.close();
await temp.cleanup();
console.log(JSON.stringify({ benchmark: 'http', node: process.version, receipts_expected: httpCalls, receipts_stored: stored, lost_receipts: httpCalls - stored, results }, null, 2));
