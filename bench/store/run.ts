// Store benchmark, in one run on a durable (fsync on) throwaway PostgreSQL 15 cluster:
//  1. the receipt chain across two instances: one chain under an advisory lock (the store as shipped) vs a chain per
//     instance (the alternative, written here with the same batching, text and hashing), at concurrency 16 and 64;
//  2. what hashing costs per receipt (canonical text + sha256 link), as a ratio of the time of a call of a `true` tool;
//  3. `verify` over 1,000,000 receipts, on SQLite and on PostgreSQL.
// Usage: npm run bench:store [-- --saves 4000 --verify-rows 1000000]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import type { Receipt } from '../../src/core/index.js';
import { execute } from '../../src/executors/index.js';
import { scanOnce } from '../../src/scanner/index.js';
import { canonicalReceiptText, GENESIS, linkHash, openPostgresStore, openSqliteStore } from '../../src/store/index.js';
import { BatchWriter } from '../../src/store/batch-writer.js';
import { makeToolYaml, writeFiles } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';
import { startPostgres } from '../../test/helpers/postgres.js';
import { makeReceipt } from '../../test/store/support.js';

const { values } = parseArgs({ options: { saves: { type: 'string', default: '4000' }, 'verify-rows': { type: 'string', default: '1000000' } } });
const saves = Number(values.saves);
const verifyRows = Number(values['verify-rows']);
const temp = await benchTempDir('hldp-bench-store-');
const cluster = await startPostgres({ durable: true });
const log = (line: unknown): void => console.error(JSON.stringify(line));

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `count` saves from `concurrency` loops spread over `save(instance)` of two instances; saves/s and latency. */
async function drive(count: number, concurrency: number, save: (instance: number, receipt: Receipt) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      while (next < count) {
        next++;
        const begin = performance.now();
        await save(client % 2, makeReceipt({ id: crypto.randomUUID(), output: 'x'.repeat(200) }));
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { per_second: Math.round(count / seconds), p50_ms: +percentile(latencies, 50).toFixed(2), p99_ms: +percentile(latencies, 99).toFixed(2) };
}

/** The alternative design: each instance extends a chain of its own, no lock across instances. */
async function perInstanceChains(url: string) {
  const sql = postgres(url, { max: 20, onnotice: () => undefined });
  await sql`CREATE TABLE IF NOT EXISTS receipts_per_instance (chain text, seq bigint, id text UNIQUE NOT NULL, tool text NOT NULL, ok boolean NOT NULL, started_ms bigint NOT NULL, body text NOT NULL, prev_hash text NOT NULL, hash text NOT NULL, PRIMARY KEY (chain, seq))`;
  const instances = [0, 1].map((instance) => {
    const connection = postgres(url, { max: 10, onnotice: () => undefined });
    let head = GENESIS;
    const writer = new BatchWriter<Receipt>(async (batch) => {
      let { seq, hash } = head;
      const rows = batch.map((receipt) => {
        const body = canonicalReceiptText(receipt);
        const link = linkHash(hash, body);
        const row = { chain: `instance-${instance}`, seq: seq + 1, id: receipt.id, tool: receipt.tool, ok: receipt.ok, started_ms: Date.parse(receipt.started_at), body, prev_hash: hash, hash: link };
        seq = row.seq;
        hash = link;
        return row;
      });
      await connection`INSERT INTO receipts_per_instance ${connection(rows)}`;
      head = { seq, hash };
      return batch.map(() => undefined);
    });
    return { writer, connection };
  });
  return {
    save: (instance: number, receipt: Receipt) => instances[instance]!.writer.append(receipt),
    close: async () => {
      await Promise.all(instances.map((instance) => instance.connection.end()));
      await sql.end();
    },
  };
}

// 1. one chain vs a chain per instance
const chainUrl = await cluster.createDatabase('hldp_bench_chain');
const single = [await openPostgresStore({ url: chainUrl, poolMax: 10 }), await openPostgresStore({ url: chainUrl, poolMax: 10 })];
const perInstance = await perInstanceChains(chainUrl);
await drive(200, 8, (instance, receipt) => single[instance]!.receipts.save(receipt));
await drive(200, 8, perInstance.save);
const chains = [];
for (const concurrency of [16, 64]) {
  // alternated, so that drift on a shared machine hits both alike
  const one = await drive(saves, concurrency, (instance, receipt) => single[instance]!.receipts.save(receipt));
  const each = await drive(saves, concurrency, perInstance.save);
  chains.push({ concurrency, saves, single_chain: one, per_instance_chains: each, throughput_ratio_per_instance_over_single: +(each.per_second / one.per_second).toFixed(2) });
  log(chains.at(-1));
}
const singleReport = await single[0]!.receipts.verify();
await Promise.all(single.map((store) => store.close()));
await perInstance.close();

// 2. hashing per receipt vs a call
const repo = join(temp.path, 'repo');
await writeFiles(repo, { 'tools/true-tool/TOOL.hdlp': makeToolYaml('true-tool', { executor: 'shell', method: 'run', shell: '{ argv: ["true"] }' }) });
const tool = (await scanOnce(repo, { cacheDir: join(temp.path, 'cache') })).tools[0]!;
const callTimes: number[] = [];
for (let index = 0; index < 200; index++) {
  const begin = performance.now();
  await execute(tool, {}, { shell: { root: temp.path } });
  callTimes.push(performance.now() - begin);
}
const sample = Array.from({ length: 20_000 }, () => makeReceipt({ id: crypto.randomUUID(), output: 'x'.repeat(200), params: { cmd: 'echo hello', cwd: 'a/b' } }));
const hashTimes: number[] = [];
let prev = GENESIS.hash;
for (let round = 0; round < 5; round++) {
  const begin = performance.now();
  for (const receipt of sample) prev = linkHash(prev, canonicalReceiptText(receipt));
  hashTimes.push(((performance.now() - begin) * 1000) / sample.length);
}
const hashUs = Math.min(...hashTimes);
const callMs = percentile(callTimes, 50);
const hashing = { receipt_bytes: canonicalReceiptText(sample[0]!).length, canonical_text_and_hash_us: +hashUs.toFixed(2), call_of_true_tool_p50_ms: +callMs.toFixed(2), ratio: +(hashUs / 1000 / callMs).toFixed(5) };
log(hashing);

// 3. verify over N receipts: rows written in bulk (their links computed as save would), then walked by the store
const receipts = function* (count: number) {
  let head = GENESIS;
  const base = makeReceipt({ output: 'x'.repeat(200) });
  for (let seq = 1; seq <= count; seq++) {
    const receipt = { ...base, id: `bench-${seq}`, duration_ms: seq % 97 };
    const body = canonicalReceiptText(receipt);
    const hash = linkHash(head.hash, body);
    yield { seq, id: receipt.id, tool: receipt.tool, ok: receipt.ok, started_ms: Date.parse(receipt.started_at), body, prev_hash: head.hash, hash };
    head = { seq, hash };
  }
};
const sqlitePath = join(temp.path, 'verify.sqlite');
await openSqliteStore({ path: sqlitePath }).close();
const bulk = new BetterSqlite3(sqlitePath);
const insert = bulk.prepare('INSERT INTO receipts (seq, id, tool, ok, started_ms, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
let last = GENESIS;
bulk.transaction(() => {
  for (const row of receipts(verifyRows)) {
    insert.run(row.seq, row.id, row.tool, row.ok ? 1 : 0, row.started_ms, row.body, row.prev_hash, row.hash);
    last = { seq: row.seq, hash: row.hash };
  }
  bulk.prepare('UPDATE receipt_chain SET seq = ?, hash = ? WHERE id = 1').run(last.seq, last.hash);
})();
bulk.close();
const sqliteStore = openSqliteStore({ path: sqlitePath });
let begin = performance.now();
let cpu = process.cpuUsage();
const sqliteVerify = await sqliteStore.receipts.verify();
const sqliteSeconds = (performance.now() - begin) / 1000;
const cpuSeconds = (usage: NodeJS.CpuUsage): number => +((usage.user + usage.system) / 1e6).toFixed(2);
const sqliteCpu = cpuSeconds(process.cpuUsage(cpu));
await sqliteStore.close();

const verifyUrl = await cluster.createDatabase('hldp_bench_verify');
await (await openPostgresStore({ url: verifyUrl })).close();
const copy = postgres(verifyUrl, { max: 1, onnotice: () => undefined });
const writable = await copy`COPY receipts (seq, id, tool, ok, started_ms, body, prev_hash, hash) FROM STDIN`.writable();
for (const row of receipts(verifyRows)) {
  // COPY's text format: a backslash escapes, so the JSON's own backslashes are doubled (it has no raw tab or newline)
  const line = `${row.seq}\t${row.id}\t${row.tool}\t${row.ok ? 't' : 'f'}\t${row.started_ms}\t${row.body.replace(/\\/g, '\\\\')}\t${row.prev_hash}\t${row.hash}\n`;
  if (!writable.write(line)) await new Promise((resolve) => writable.once('drain', resolve));
  last = { seq: row.seq, hash: row.hash };
}
await new Promise<void>((resolve, reject) => writable.end((error?: Error | null) => (error ? reject(error) : resolve())));
await copy`UPDATE receipt_chain SET seq = ${last.seq}, hash = ${last.hash} WHERE id = 1`;
await copy`VACUUM ANALYZE receipts`;
await copy.end();
const pgStore = await openPostgresStore({ url: verifyUrl });
begin = performance.now();
cpu = process.cpuUsage();
const pgVerify = await pgStore.receipts.verify();
const pgSeconds = (performance.now() - begin) / 1000;
// this process's CPU time: what the machine's load does not inflate (the server's own work is not in it)
const pgCpu = cpuSeconds(process.cpuUsage(cpu));
await pgStore.close();
const verify = {
  receipts: verifyRows,
  sqlite: { ok: sqliteVerify.ok, checked: sqliteVerify.checked, seconds: +sqliteSeconds.toFixed(2), cpu_seconds: sqliteCpu },
  postgres: { ok: pgVerify.ok, checked: pgVerify.checked, seconds: +pgSeconds.toFixed(2), cpu_seconds: pgCpu },
  target_seconds: 10,
};
log(verify);

await cluster.stop();
await temp.cleanup();
const { loadavg } = await import('node:os');
console.log(JSON.stringify({ benchmark: 'store', node: process.version, load_average: loadavg().map((load) => +load.toFixed(2)), chains, single_chain_verified: singleReport.ok, hashing, verify }, null, 2));
