// The gateway's CPU for N sandboxed `true` runs through runProcess, in a git workspace (a root gateway runs them as
// root), from the source tree TREE: to compare two trees side by side, alternate them, each under /usr/bin/time for
// the whole process tree's CPU.
//   /usr/bin/time -f '%U %S' npx tsx bench/exec/sandbox-runs.ts TREE [RUNS=100] [WAITING_LAUNCHERS=2]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { resourceUsage } from 'node:process';
const tree = process.argv[2]!;
const runs = Number(process.argv[3] ?? 100);
const waiting = Number(process.argv[4] ?? 2);
const { runProcess, minimalEnvironment } = await import(`${tree}/src/executors/index.ts`);
const { createSandbox } = await import(`${tree}/src/sandbox/index.ts`);
const root = mkdtempSync('/tmp/sbx10-bench-ws-');
execFileSync('git', ['init', '-q', root]);
const sandbox = await createSandbox({ mode: 'required', waitingLaunchers: waiting, runAs: 'root' });
const spec = { file: 'true', args: [], cwd: root, env: minimalEnvironment(), timeoutMs: 20000, maxOutputBytes: 65536, isolation: { sandbox, workspace: root } };
for (let i = 0; i < 5; i++) await runProcess(spec);
const before = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < runs; i++) { const r = await runProcess(spec); if (!r.ok) throw new Error(JSON.stringify(r)); }
const wall = performance.now() - t0;
const own = process.cpuUsage(before);
await sandbox.close();
rmSync(root, { recursive: true, force: true });
console.log(JSON.stringify({ tree, waiting, runs, own_cpu_ms_per_run: (own.user + own.system) / 1000 / runs, wall_ms_per_run: wall / runs }));
