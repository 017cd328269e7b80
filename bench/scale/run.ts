// Scale-out benchmark: POST /v1/call of a `true` shell tool against one `hldp serve` on SQLite and against two
// `hldp serve` on one durable PostgreSQL 15 (requests spread evenly), at concurrency 16 and 64, alternated in one run;
// receipts counted and the chain verified afterwards; then the webhook fan-out: a push announced at instance A, until
// instance B (whose poll is off) serves the new commit.
// Usage: npm run bench:scale [-- --requests 2000 --concurrency 16,64]
import { createHmac } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { Pool } from 'undici';
import { commitFiles, initRepository, makeToolYaml } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';
import { startPostgres } from '../../test/helpers/postgres.js';
import { spawnService, type ServiceProcess } from '../../test/helpers/spawn-service.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16,64' } } });
const total = Number(values.requests);
const levels = values.concurrency.split(',').map(Number);
const SECRET = 'bench-scale-secret';

const temp = await benchTempDir('hldp-bench-scale-');
const repo = await initRepository(join(temp.path, 'repo'));
await commitFiles(repo, { 'tools/true-tool/TOOL.hdlp': makeToolYaml('true-tool', { executor: 'shell', method: 'run', shell: '{ argv: ["true"] }' }) });
const cluster = await startPostgres({ durable: true });
const storeUrl = await cluster.createDatabase('hldp_bench_scale');

let instances = 0;
const serve = (env: NodeJS.ProcessEnv): Promise<ServiceProcess> => {
  const own = join(temp.path, `instance-${++instances}`);
  return spawnService(
    ['serve', '--port', '0', '--repo', repo],
    { HLDP_CACHE_DIR: join(own, 'cache'), HLDP_DATA_DIR: join(own, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '0', HLDP_WEBHOOK_SECRET: SECRET, ...env },
    / at (http:\/\/[\d.:]+)\n/,
  );
};
const sqlite = await serve({});
const [a, b] = await Promise.all([serve({ HLDP_STORE_URL: storeUrl }), serve({ HLDP_STORE_URL: storeUrl })]);

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const body = JSON.stringify({ tool: 'true-tool', params: {} });
const pools = new Map<string, Pool>();
const poolOf = (url: string): Pool => pools.get(url) ?? pools.set(url, new Pool(url, { connections: 64 })).get(url)!;
let sent = { sqlite: 0, postgres: 0 };

/** `count` calls from `concurrency` clients, client i to `targets[i % targets.length]`. */
async function load(targets: ServiceProcess[], concurrency: number, count: number, side: 'sqlite' | 'postgres') {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      const pool = poolOf(targets[client % targets.length]!.url);
      while (next < count) {
        next++;
        sent[side]++;
        const begin = performance.now();
        const response = await pool.request({ path: '/v1/call', method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const receipt = (await response.body.json()) as { ok?: boolean; error?: string | null };
        if (response.statusCode !== 200 || receipt.ok !== true || receipt.error !== null) errors++;
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { per_second: Math.round(count / seconds), p50_ms: +percentile(latencies, 50).toFixed(1), p99_ms: +percentile(latencies, 99).toFixed(1), errors };
}

await load([sqlite], 8, 100, 'sqlite');
await load([a, b], 8, 100, 'postgres');
const results = [];
for (const concurrency of levels) {
  // alternated, so that drift on a shared machine hits both alike
  const one = await load([sqlite], concurrency, total, 'sqlite');
  const two = await load([a, b], concurrency, total, 'postgres');
  results.push({ concurrency, requests: total, one_sqlite_instance: one, two_postgres_instances: two, throughput_ratio_two_postgres_over_one_sqlite: +(two.per_second / one.per_second).toFixed(2), p99_ratio: +(two.p99_ms / one.p99_ms).toFixed(2) });
  console.error(JSON.stringify(results.at(-1)));
}

// the webhook fan-out: A hears the push, B (no poll) serves the new commit
const fanout: number[] = [];
for (let round = 0; round < 5; round++) {
  const commit = await commitFiles(repo, { [`tools/fresh-${round}/TOOL.hdlp`]: makeToolYaml(`fresh-${round}`, { executor: 'shell', method: 'run', shell: '{ argv: ["true"] }' }) });
  const payload = JSON.stringify({ ref: 'refs/heads/main' });
  const begin = performance.now();
  await fetch(`${a.url}/v1/hooks/forgejo`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forgejo-event': 'push', 'x-forgejo-signature': createHmac('sha256', SECRET).update(payload).digest('hex') }, body: payload });
  for (;;) {
    const health = (await (await fetch(`${b.url}/healthz`)).json()) as { commit: string };
    if (health.commit === commit) break;
    if (performance.now() - begin > 30_000) throw new Error('instance B never served the pushed commit');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  fanout.push(performance.now() - begin);
}

for (const pool of pools.values()) await pool.close();
const verify = (await (await fetch(`${a.url}/v1/receipts/verify`)).json()) as { ok: boolean; checked: number };
await Promise.all([sqlite.stop(), a.stop(), b.stop()]);
const file = new BetterSqlite3(join(temp.path, 'instance-1', 'data', 'receipts.db'), { readonly: true });
const storedSqlite = (file.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
file.close();
const sql = postgres(storeUrl, { max: 1, onnotice: () => undefined });
const [{ n: storedPostgres }] = (await sql`SELECT count(*)::int AS n FROM receipts`) as unknown as [{ n: number }];
await sql.end();
await cluster.stop();
await temp.cleanup();
console.log(JSON.stringify({
  benchmark: 'scale', node: process.version, load_average: loadavg().map((load) => +load.toFixed(2)),
  receipts: { sqlite: { sent: sent.sqlite, stored: storedSqlite }, postgres: { sent: sent.postgres, stored: storedPostgres, chain_verified: verify.ok, checked: verify.checked } },
  results,
  webhook_fanout_ms: { runs: fanout.map((ms) => Math.round(ms)), max: Math.round(Math.max(...fanout)), target: 2000 },
}, null, 2));
