// What one request costs a real `hldp serve` over REPO from the warm cache in WORK (issue #18: a reader of every tool
// on a request path makes, and may keep, every definition of the lazily read index: ~170 MB at 100,000 tools). The
// server is started with bench/scan/heap-on-signal.cjs preloaded; once matching is ready, each STEP is sent in turn,
// and for each the wall time of its answer, the server's CPU time meanwhile (all its threads, from /proc), and V8's
// heap after two full collections (what the server keeps), and RSS, before and after it. Steps: call-unknown
// (POST /v1/call of a name no tool has: near names), get-unknown (GET /v1/tools/NAME of one), list-q (GET /v1/tools?q=),
// session (POST /v1/sessions), session-call (POST /v1/call in that session, params invalid: nothing runs),
// session-call-unknown, session-tools, session-prompt, mcp-list (an MCP session's initialize and tools/list), receipts,
// rescan (commits a one-file change to REPO, a git repository: tool-000003's variant, in its intent, then POST /v1/scan;
// its CPU counts the cache written after it, waited for; give each side a clone of REPO of its own), rescan-add (the
// same with a tool added, a new folder, committed by git fast-import: REPO may be bare).
// A step may be given twice (the second time shows what the first left built). Run it over each side's built
// bin/hldp.js alternately, under nice. Usage: npx tsx bench/scan/request-cost.ts BIN REPO WORK STEP...
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commitAhead } from './commit-ahead.js';
import { toolYaml } from './tool-yaml.js';
import { usage } from '../usage.js';

const [bin, repo, work, ...steps] = process.argv.slice(2) as [string, string, string, ...string[]];
if (!bin || !repo || !work || steps.length === 0) usage('npx tsx bench/scan/request-cost.ts BIN REPO WORK STEP...');
const heapFile = join(work, `heap-${process.pid}.json`);
const env = { ...process.env, HLDP_CACHE_DIR: `${work}/cache`, HLDP_DATA_DIR: `${work}/data`, HLDP_WORKSPACE: work, HLDP_LOG_LEVEL: 'error', HLDP_POLL_INTERVAL_MS: '0', HLDP_BENCH_HEAP_FILE: heapFile };
const preload = fileURLToPath(new URL('./heap-on-signal.cjs', import.meta.url));
const child = spawn(process.execPath, ['--expose-gc', '--require', preload, bin, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
const url = await new Promise<string>((resolve, reject) => {
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
    const match = / at (http:\/\/[\d.:]+)\n/.exec(stderr);
    if (match) resolve(match[1]!);
  });
  child.once('exit', () => reject(new Error(stderr)));
});
const pid = child.pid!;

const cpuMs = (): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssMb = (): number => Math.round(Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
// V8's heap once the server has collected its garbage (it writes it on SIGUSR2)
async function heapMb(): Promise<number> {
  rmSync(heapFile, { force: true });
  child.kill('SIGUSR2');
  while (!existsSync(heapFile)) await sleep(20);
  return Math.round((JSON.parse(readFileSync(heapFile, 'utf8')) as NodeJS.MemoryUsage).heapUsed / 2 ** 20);
}

for (;;) {
  const health = (await (await fetch(`${url}/healthz`)).json()) as { matching?: string };
  if (health.matching === undefined || health.matching === 'ready') break;
  await sleep(100);
}

const json = { 'content-type': 'application/json' };
let session = '';
async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<number> {
  let response: Response;
  try {
    response = await fetch(`${url}${path}`, { method, headers: { ...json, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch (error) {
    // a kept-alive connection the server closed as the request went out (its idle timeout, while a heap was measured): asked again
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    response = await fetch(`${url}${path}`, { method, headers: { ...json, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  }
  await response.text();
  session = response.headers.get('x-hldp-session') ?? session;
  return response.status;
}
async function mcpList(): Promise<number> {
  const headers = { accept: 'application/json, text/event-stream' };
  const init = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'request-cost', version: '0' } } }) });
  await init.text();
  const id = init.headers.get('mcp-session-id') ?? '';
  await send('POST', '/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, 'mcp-session-id': id });
  return send('POST', '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { ...headers, 'mcp-session-id': id });
}
const STEPS: Record<string, () => Promise<number>> = {
  'call-unknown': () => send('POST', '/v1/call', { tool: 'tool-00001x', params: {} }),
  'get-unknown': () => send('GET', '/v1/tools/tool-0000x1'),
  'list-q': () => send('GET', '/v1/tools?q=variant&limit=5'),
  session: () => send('POST', '/v1/sessions', {}),
  'session-call': () => send('POST', '/v1/call', { tool: 'tool-000001', params: {} }, { 'x-hldp-session': session }),
  'session-call-unknown': () => send('POST', '/v1/call', { tool: 'tool-00001y', params: {} }, { 'x-hldp-session': session }),
  'session-tools': () => send('GET', `/v1/sessions/${session}/tools`),
  'session-prompt': () => send('GET', `/v1/sessions/${session}/prompt`),
  'mcp-list': mcpList,
  rescan,
  'rescan-add': rescanAdd,
  receipts: () => send('GET', '/v1/receipts'),
};

// a one-file change committed, then a scan asked for; done once the cache file of the new commit is written
async function rescan(): Promise<number> {
  const variant = Date.now();
  writeFileSync(join(repo, 'tools/tool-000003/TOOL.hdlp'), toolYaml('tool-000003', variant));
  execFileSync('git', ['-C', repo, 'commit', '-qam', `change tool-000003 (${variant})`]);
  const commit = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  return scanned(commit);
}

// a tool added (a folder of its own, sorted among the others), committed, then a scan asked for; done once cached
async function rescanAdd(): Promise<number> {
  const name = `tool-000003-added-${Date.now()}`;
  return scanned(commitAhead(repo, { [`tools/${name}/TOOL.hdlp`]: toolYaml(name) }, `add ${name}`));
}

async function scanned(commit: string): Promise<number> {
  const status = await send('POST', '/v1/scan', {});
  for (;;) {
    const written = cacheFiles().find((path) => path.endsWith(`${commit}.json`));
    if (written && statSync(written).size > 0) return status;
    await sleep(50);
  }
}
function cacheFiles(): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder, { withFileTypes: true })) {
      if (name.isDirectory()) walk(join(folder, name.name));
      else found.push(join(folder, name.name));
    }
  };
  walk(`${work}/cache`);
  return found;
}

const ready = { heap_mb: await heapMb(), rss_mb: rssMb() };
const results: Array<Record<string, unknown>> = [];
for (const step of steps) {
  const run = STEPS[step];
  if (!run) throw new Error(`no step '${step}'; steps: ${Object.keys(STEPS).join(', ')}`);
  const heapBefore = await heapMb();
  const cpu = cpuMs();
  const start = performance.now();
  const status = await run();
  const wallMs = Math.round(performance.now() - start);
  const usedMs = cpuMs() - cpu;
  results.push({ step, status, wall_ms: wallMs, cpu_ms: usedMs, heap_mb: [heapBefore, await heapMb()], rss_mb: rssMb() });
}
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
rmSync(heapFile, { force: true });
console.log(JSON.stringify({ bin, load: loadavg().map((value) => Math.round(value * 10) / 10), ready, steps: results }));
