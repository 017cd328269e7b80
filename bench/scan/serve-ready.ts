// A real `hldp serve` over REPO from the warm cache in WORK (issue #18, ready before the search index): wall and CPU time
// (the process's, from /proc) until it listens, the first request by name, /healthz polled every 20 ms until it says
// matching: ready (and the longest of those waits: how long the event loop was held meanwhile), then the first match.
// A checkout before the change has no `matching` field: it is ready when it listens. Run it over each side's built
// bin/hldp.js alternately; the first run over a fresh WORK is cold.
// Usage: npx tsx bench/scan/serve-ready.ts BIN REPO WORK
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
const [bin, repo, work] = process.argv.slice(2) as [string, string, string];
const env = { ...process.env, HLDP_CACHE_DIR: `${work}/cache`, HLDP_DATA_DIR: `${work}/data`, HLDP_WORKSPACE: work, HLDP_LOG_LEVEL: 'warn' };
const cpu = (pid: number): number => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const start = performance.now();
const child = spawn(process.execPath, [bin, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
const url = await new Promise<string>((resolve, reject) => { child.stderr!.on('data', (c: Buffer) => { stderr += c; const m = / at (http:\/\/[\d.:]+)\n/.exec(stderr); if (m) resolve(m[1]!); }); child.once('exit', () => reject(new Error(stderr))); });
const listening = { s: (performance.now() - start) / 1000, cpu_s: cpu(child.pid!) };
const t0 = performance.now();
const byName = await fetch(`${url}/v1/tools/tool-000001`); await byName.text();
const firstByNameMs = performance.now() - t0;
let matching: unknown;
let longestHealthMs = 0;
// a kept-alive connection the server closes as a request goes out (its 5 s idle timeout, while the index loads at 100,000 tools) is reset: asked again
const health = async (): Promise<{ matching?: string }> => { try { return await (await fetch(`${url}/healthz`)).json() as { matching?: string }; } catch (error) { if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error; return health(); } };
for (;;) { const th = performance.now(); const h = await health(); longestHealthMs = Math.max(longestHealthMs, performance.now() - th); if (h.matching === undefined || h.matching === 'ready') { matching = h.matching; break; } await new Promise((r) => setTimeout(r, 20)); }
const ready = { s: (performance.now() - start) / 1000, cpu_s: cpu(child.pid!) };
const t1 = performance.now();
const m = await fetch(`${url}/v1/match`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ intent: 'run tool-000001 on the target' }) }); await m.text();
const firstMatchMs = performance.now() - t1;
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
console.log(JSON.stringify({ bin, load: loadavg().map((x) => Math.round(x * 10) / 10), listening, first_by_name_ms: Math.round(firstByNameMs), matching_ready: matching ? ready : 'n/a (before: ready at listen)', first_match_ms: Math.round(firstMatchMs), longest_healthz_while_loading_ms: Math.round(longestHealthMs) }));
