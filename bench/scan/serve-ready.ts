// A real `hldp serve` over REPO from the warm cache in WORK (issue #18, ready before the search index): wall and CPU time
// (the process's, from /proc) until it listens, the first request by name, /healthz polled every 20 ms until it says
// matching: ready (and the longest of those waits: how long the event loop was held meanwhile), then the first match.
// A checkout before the change has no `matching` field: it is ready when it listens. Run it over each side's built
// bin/hldp.js alternately; the first run over a fresh WORK is cold. Memory (issue #18's ≤ 300 MB): RSS and its peak
// from /proc/PID/status, V8's heap and the memory outside it (array buffers) from the server's /metrics, at listening,
// once matching is ready, and after --settle S more seconds (default 5) with /healthz asked meanwhile.
// --then STEP (repeatable) makes a request after that, and reports RSS and heap after each (then after a collection
// the server is asked to let garbage go by waiting --settle again): what a whole read of the tools costs a served
// index. A STEP is `GET /path`, `POST /path {json}` (`{session}` in a path is the session the last `POST /v1/sessions` opened), or `mcp-list` (an MCP session's initialize and tools/list).
// --ahead commits a one-file change to REPO first (tool-000003's variant, by git fast-import: REPO may be bare), so that
// the server starts with a cache one commit behind: a restart onto a repository that moved on while it was down.
// --cpu-prof DIR writes the server's CPU profiles (main thread and workers) into DIR, for a breakdown of the start.
// Usage: npx tsx bench/scan/serve-ready.ts BIN REPO WORK [--settle S] [--ahead] [--then STEP]... [--cpu-prof DIR]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { commitAhead } from './commit-ahead.js';
import { toolYaml } from './tool-yaml.js';
import { usage } from '../usage.js';
const { positionals, values } = parseArgs({ allowPositionals: true, options: { settle: { type: 'string', default: '5' }, ahead: { type: 'boolean', default: false }, then: { type: 'string', multiple: true, default: [] }, 'cpu-prof': { type: 'string' } } });
const [bin, repo, work] = positionals as [string, string, string];
if (positionals.length < 3) usage('npx tsx bench/scan/serve-ready.ts BIN REPO WORK [--settle S] [--ahead] [--then STEP]... [--cpu-prof DIR]');
const ahead = values.ahead ? commitAhead(repo, { 'tools/tool-000003/TOOL.hdlp': toolYaml('tool-000003', Date.now()) }, 'change tool-000003 while the server is down') : undefined;
const env = { ...process.env, HLDP_CACHE_DIR: `${work}/cache`, HLDP_DATA_DIR: `${work}/data`, HLDP_WORKSPACE: work, HLDP_LOG_LEVEL: 'warn' };
const cpu = (pid: number): number => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const statusMb = (pid: number): { rss_mb: number; peak_rss_mb: number } => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss_mb: Math.round(kb('VmRSS') / 1024), peak_rss_mb: Math.round(kb('VmHWM') / 1024) };
};
// V8's heap and what lies outside it, as the server's own /metrics says (prom-client's default gauges)
const memory = async (pid: number, url: string): Promise<Record<string, number>> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const gauge = (name: string): number => Math.round(Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
  return { ...statusMb(pid), heap_used_mb: gauge('hldp_nodejs_heap_size_used_bytes'), heap_total_mb: gauge('hldp_nodejs_heap_size_total_bytes'), external_mb: gauge('hldp_nodejs_external_memory_bytes') };
};
const start = performance.now();
const child = spawn(process.execPath, [...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`, '--cpu-prof-interval=250'] : []), bin, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
const url = await new Promise<string>((resolve, reject) => { child.stderr!.on('data', (c: Buffer) => { stderr += c; const m = / at (http:\/\/[\d.:]+)\n/.exec(stderr); if (m) resolve(m[1]!); }); child.once('exit', () => reject(new Error(stderr))); });
const listening = { s: (performance.now() - start) / 1000, cpu_s: cpu(child.pid!), ...statusMb(child.pid!) };
const t0 = performance.now();
const byName = await fetch(`${url}/v1/tools/tool-000001`); await byName.text();
const firstByNameMs = performance.now() - t0;
let matching: unknown;
let longestHealthMs = 0;
// a kept-alive connection the server closes as a request goes out (its 5 s idle timeout, while the index loads at 100,000 tools) is reset: asked again
const health = async (): Promise<{ matching?: string }> => { try { return await (await fetch(`${url}/healthz`)).json() as { matching?: string }; } catch (error) { if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error; return health(); } };
for (;;) { const th = performance.now(); const h = await health(); longestHealthMs = Math.max(longestHealthMs, performance.now() - th); if (h.matching === undefined || h.matching === 'ready') { matching = h.matching; break; } await new Promise((r) => setTimeout(r, 20)); }
const ready = { s: (performance.now() - start) / 1000, cpu_s: cpu(child.pid!), ...(await memory(child.pid!, url)) };
const t1 = performance.now();
const m = await fetch(`${url}/v1/match`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ intent: 'run tool-000001 on the target' }) }); await m.text();
const firstMatchMs = performance.now() - t1;
for (const until = performance.now() + Number(values.settle) * 1000; performance.now() < until; ) { await health(); await new Promise((r) => setTimeout(r, 200)); }
const settled = await memory(child.pid!, url);
// each --then step, and the memory after it settled
const steps: Array<Record<string, unknown>> = [];
// a step's {session} is the session the last POST /v1/sessions opened (its X-HLDP-Session header)
let sessionId = '';
for (const step of values.then as string[]) {
  const ts = performance.now();
  let status: number;
  if (step === 'mcp-list') {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'serve-ready', version: '0' } } }) });
    await init.text();
    const session = init.headers.get('mcp-session-id') ?? '';
    await (await fetch(`${url}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const list = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) });
    await list.text();
    status = list.status;
  } else {
    const [method, path, ...body] = step.replace('{session}', sessionId).split(' ');
    const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body.length ? { body: body.join(' ') } : {}) });
    await response.text();
    status = response.status;
    sessionId = response.headers.get('x-hldp-session') ?? sessionId;
  }
  const ms = Math.round(performance.now() - ts);
  const after = await memory(child.pid!, url);
  for (const until = performance.now() + Number(values.settle) * 1000; performance.now() < until; ) { await health(); await new Promise((r) => setTimeout(r, 200)); }
  steps.push({ step, status, ms, after, settled: await memory(child.pid!, url) });
}
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
// whether the server cached the commit it started onto (the next --ahead run is then one commit ahead again)
const cachedAhead = ahead === undefined ? undefined : (readdirSync(`${work}/cache`, { recursive: true }) as string[]).some((path) => path.endsWith(`${ahead}.json`));
console.log(JSON.stringify({ bin, ...(ahead ? { ahead, cached_ahead: cachedAhead } : {}), load: loadavg().map((x) => Math.round(x * 10) / 10), listening, first_by_name_ms: Math.round(firstByNameMs), matching_ready: matching ? ready : 'n/a (before: ready at listen)', first_match_ms: Math.round(firstMatchMs), [`after_${values.settle}_s`]: settled, longest_healthz_while_loading_ms: Math.round(longestHealthMs), ...(steps.length ? { then: steps } : {}) }));
