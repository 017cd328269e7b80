// The gateway's own CPU per `POST /v1/call`, without the run: a real `hldp serve` whose one tool a policy denies, so
// that every call goes through all of the call path but the executor (HTTP parsing, the middleware, authentication, the
// body's validation, lookup and params, the policy, the DENIED receipt's canonical text, hash chain and SQLite insert,
// events, the JSON answer) and nothing forks. What bench/http/run.ts's ratio adds to the executor is this, plus the
// run's own bookkeeping. Several builds (`--hldp PATH` of each one's bin/hldp.js, this checkout's by default) are
// measured in alternation, each round every build in turn, so that a shared machine's drift hits them alike.
// Usage: npx tsx bench/http/gateway-cost.ts [--hldp A/bin/hldp.js --hldp B/bin/hldp.js] [--calls 3000] [--concurrency 16] [--rounds 5]
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { Pool } from 'undici';
import { makeToolYaml, writeFiles } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';

const { values } = parseArgs({ options: { hldp: { type: 'string', multiple: true }, calls: { type: 'string', default: '3000' }, concurrency: { type: 'string', default: '16' }, rounds: { type: 'string', default: '5' } } });
const builds = values.hldp ?? [new URL('../../bin/hldp.js', import.meta.url).pathname];
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);

const POLICY = ['name: deny-true', 'author: BENCH-001', 'why: every call of the measured tool is denied, so none forks', 'approval:', '  - tools: [true-tool]', '    decision: deny', '    reason: measured without a run', ''].join('\n');

interface Served {
  build: string;
  child: ChildProcess;
  pool: Pool;
  data: string;
  sent: number;
  cpu: number[];
  perSecond: number[];
}

const TICKS_PER_MS = 100 / 1000;
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
}

const temp = await benchTempDir('hldp-bench-gateway-cost-');

async function serve(build: string, index: number): Promise<Served> {
  const root = join(temp.path, `build-${index}`);
  const repo = join(root, 'repo');
  await writeFiles(repo, { 'tools/true-tool/TOOL.hdlp': makeToolYaml('true-tool', { executor: 'shell', method: 'run', shell: '{ argv: ["true"] }' }), 'policies/deny-true.hdlp': POLICY });
  const data = join(root, 'data');
  const env = { ...process.env, HLDP_CACHE_DIR: join(root, 'cache'), HLDP_DATA_DIR: data, HLDP_WORKSPACE: root, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '0' };
  const child = spawn(process.execPath, [build, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const found = / at (http:\/\/[\d.:]+)\n/.exec(said);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${build} serve exited ${code} before listening:\n${said}`)));
  });
  return { build, child, pool: new Pool(url, { connections: concurrency }), data, sent: 0, cpu: [], perSecond: [] };
}

const body = JSON.stringify({ tool: 'true-tool', params: {} });
async function load(served: Served, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        served.sent++;
        const response = await served.pool.request({ path: '/v1/call', method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const receipt = (await response.body.json()) as { code?: string };
        if (response.statusCode !== 200 || receipt.code !== 'DENIED') throw new Error(`${served.build}: expected a DENIED receipt, got ${response.statusCode} ${JSON.stringify(receipt)}`);
      }
    }),
  );
}

const servers: Served[] = [];
for (const [index, build] of builds.entries()) servers.push(await serve(build, index));
// warm: the JIT's first passes, the connections, the store's statements
for (const served of servers) await load(served, Math.min(1000, calls));
const loadBefore = loadavg()[0]!;
for (let round = 0; round < rounds; round++) {
  for (const served of round % 2 === 0 ? servers : [...servers].reverse()) {
    const before = await cpuMs(served.child.pid!);
    const start = performance.now();
    await load(served, calls);
    const seconds = (performance.now() - start) / 1000;
    served.cpu.push(+((await cpuMs(served.child.pid!)) - before) / calls);
    served.perSecond.push(Math.round(calls / seconds));
  }
}
const loadAfter = loadavg()[0]!;
const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const results = [];
for (const served of servers) {
  await served.pool.close();
  const exited = new Promise((resolve) => served.child.once('exit', resolve));
  served.child.kill('SIGTERM');
  await exited;
  const database = new BetterSqlite3(join(served.data, 'receipts.db'), { readonly: true });
  const stored = (database.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
  database.close();
  results.push({ build: served.build, cpu_ms_per_call: served.cpu.map((value) => +value.toFixed(3)), median_cpu_ms_per_call: +median(served.cpu).toFixed(3), calls_per_second: served.perSecond, receipts_sent: served.sent, receipts_stored: stored });
}
await temp.cleanup();
console.log(JSON.stringify({ benchmark: 'http-gateway-cost', node: process.version, calls, concurrency, rounds, load_average_before: +loadBefore.toFixed(2), load_average_after: +loadAfter.toFixed(2), results }, null, 2));
