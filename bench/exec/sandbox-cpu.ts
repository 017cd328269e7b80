// CPU of sandboxed `true` runs through execute(), from the tree in ROOT (to compare two trees side by side, alternated):
//   ROOT=$PWD N=100 /usr/bin/time -f "%U+%S" npx tsx bench/exec/sandbox-cpu.ts
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const ROOT = process.env.ROOT!;
const { execute } = await import(`${ROOT}/src/executors/index.ts`);
const { createSandbox } = await import(`${ROOT}/src/sandbox/index.ts`);
const N = Number(process.env.N ?? 150);
const root = await realpath(await mkdtemp(join(tmpdir(), 'sc10-bench-')));
const sandbox = await createSandbox({ mode: 'auto', waitingLaunchers: Number(process.env.WAITING ?? 2) });
if (sandbox.status.sandbox !== 'on') throw new Error('no sandbox');
const definition = { name: 'bench', display: 'bench', intent: 'b', method: 'run', executor: 'shell', params_schema: { type: 'object', properties: {} }, constraints: { timeout_ms: 30000, max_output_bytes: 65536, require_confirm: false }, author: 'b', created: '2026-05-31', why: 'n', aliases: [], examples: [], shell: { argv: ['true'] }, source: { path: 'tools/bench/TOOL.hdlp', oid: '0' } };
const context = { shell: { root, sandbox } };
for (let i = 0; i < 10; i += 1) await execute(definition, {}, context);
const cpu0 = process.cpuUsage(); const t0 = performance.now();
for (let i = 0; i < N; i += 1) { const r = await execute(definition, {}, context); if (!r.ok) throw new Error(r.error); }
const cpu = process.cpuUsage(cpu0); const wall = performance.now() - t0;
console.log(JSON.stringify({ root: ROOT, n: N, gateway_cpu_ms_per_run: +((cpu.user + cpu.system) / 1000 / N).toFixed(2), wall_ms_per_run: +(wall / N).toFixed(2) }));
await sandbox.close();
process.exit(0);
