// Where each side's CPU went during bench/http's loads, from the Linux perf samples `run.ts --perf DIR` records: the
// server's process (every thread, not its children) during the HTTP load, and the benchmark's own during the in-process
// load. perf samples CPU time (cpu-clock), kernel included, so a system call is charged to the code that made it; each
// sample goes to the innermost JavaScript frame of this project or of a package (the CLI's bundle keeps esbuild's
// `// dist/…` markers: named by their source), else to Node's own JavaScript, else to what ran with no JavaScript on
// the stack (the event loop's native work, the garbage collector's and the compiler's threads).
// Usage: npx tsx bench/http/perf-breakdown.ts DIR [--concurrency 16] [--calls 1000] [--top 30] [--drill MODULE]
// (--drill: the leaf functions and the frames above them of the samples charged to that module, on both sides)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { concurrency: { type: 'string', default: '16' }, calls: { type: 'string', default: '1000' }, top: { type: 'string', default: '30' }, drill: { type: 'string' } } });
const [directory] = positionals;
if (!directory) {
  process.stderr.write('usage: npx tsx bench/http/perf-breakdown.ts DIR [--concurrency 16] [--calls 1000] [--top 30]\n');
  process.exit(2);
}
const calls = Number(values.calls);
const top = Number(values.top);

// the bundle's module markers, per file: `// dist/gateway/http/api-routes.js` opens each module's code
const markers = new Map<string, Array<{ line: number; module: string }>>();
function bundleModule(path: string, line: number): string {
  let list = markers.get(path);
  if (!list) {
    list = [];
    readFileSync(path, 'utf8').split('\n').forEach((text, index) => {
      const marker = /^\/\/ ((?:src|dist|node_modules)\/\S+)$/.exec(text);
      // the CommonJS bundle is made from tsc's dist/: named as its source
      if (marker) list!.push({ line: index + 1, module: marker[1]!.replace(/^dist\/(.*)\.js$/, 'src/$1.ts') });
    });
    markers.set(path, list);
  }
  let found = path;
  for (const marker of list) {
    if (marker.line > line) break;
    found = marker.module;
  }
  return found;
}

/** The module of a perf-map JavaScript symbol (`JS:*name file:///…/x.ts:12:3`, `JS:^name node:_http_server:1026:26`), or undefined. */
function moduleOf(symbol: string): string | undefined {
  const where = /^JS:\S*\s.*?((?:file:\/\/)?\/[^\s:]+|node:[^\s:]+):(\d+):\d+$/.exec(symbol) ?? /^JS:\S*\s((?:file:\/\/)?\/[^\s:]+|node:[^\s:]+)/.exec(symbol);
  if (!where) return undefined;
  const file = where[1]!.replace(/^file:\/\//, '');
  if (file.startsWith('node:')) return file;
  if (/\/dist\/bundle\//.test(file) && where[2]) return bundleModule(file, Number(where[2]));
  return file.replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*?\/(src|bench|bin)\//, '$1/');
}

/** The group a module belongs to. */
function groupOf(module: string): string {
  const npm = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (npm) return `npm: ${npm[1]}`;
  const folder = /^src\/([^/]+)(?:\/([^/]+)\/)?/.exec(module);
  if (folder) return folder[1] === 'gateway' && folder[2] ? `src/gateway/${folder[2]}` : `src/${folder[1]}`;
  if (module.startsWith('node:')) return /child_process/.test(module) ? 'node: child_process' : /http|net|stream|buffer|string_decoder/.test(module) ? 'node: http, net, streams' : /timers|task_queues|promises|events/.test(module) ? 'node: event loop, timers, promises' : 'node: other';
  return module;
}

interface Tally {
  ms: number;
  groups: Map<string, number>;
  modules: Map<string, number>;
  /** the samples of --drill's module, by their first frames */
  drilled: Map<string, number>;
  /** by the innermost function of this project or a package */
  functions: Map<string, number>;
}

/** Charges each sample of process `pid` (all its threads) to the innermost frame of ours or a package's. */
function tally(file: string, pid: number): Tally {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'pid,tid,period,ip,sym'], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  const result: Tally = { ms: 0, groups: new Map(), modules: new Map(), drilled: new Map(), functions: new Map() };
  const add = (map: Map<string, number>, key: string, ms: number): void => void map.set(key, (map.get(key) ?? 0) + ms);
  for (const sample of text.split('\n\n')) {
    const lines = sample.split('\n').filter((line) => line.trim() !== '');
    const head = /^\s*(\d+)\/(\d+)\s+(\d+)/.exec(lines[0] ?? '');
    if (!head || Number(head[1]) !== pid) continue;
    const ms = Number(head[3]) / 1e6;
    const frames = lines.slice(1).map((line) => line.trim().replace(/^[0-9a-f]+\s+/, '').replace(/\+0x[0-9a-f]+$/, ''));
    let module: string | undefined;
    let nodeModule: string | undefined;
    let name = '';
    for (const frame of frames) {
      const found = moduleOf(frame);
      if (found === undefined) continue;
      if (found.startsWith('node:')) {
        nodeModule ??= found;
        continue;
      }
      module = found;
      name = /^JS:\S?(\S*)/.exec(frame)?.[1] ?? '';
      break;
    }
    let key: string;
    if (module !== undefined) key = module;
    else if (nodeModule !== undefined) key = nodeModule;
    else if (Number(head[2]) !== pid) key = '(other threads: GC, compiler, libuv pool)';
    else key = frames.some((frame) => /uv__io_poll|uv_run/.test(frame)) ? '(event loop, no JavaScript: I/O callbacks, child exits)' : '(main thread, no JavaScript: GC, compiler, start-up)';
    result.ms += ms;
    add(result.modules, key, ms);
    add(result.groups, key.startsWith('(') ? key : groupOf(key), ms);
    if (module !== undefined) add(result.functions, `${name || '(anonymous)'} ${module}`, ms);
    if (key === values.drill) add(result.drilled, frames.slice(0, 4).map((frame) => frame.replace(/ \(.*\)$/, '')).join(' < '), ms);
  }
  return result;
}

const pids = JSON.parse(readFileSync(join(directory, 'perf-pids.json'), 'utf8')) as { server: number; in_process: number };
const concurrency = values.concurrency;
const http = tally(join(directory, `perf-http-${concurrency}.data`), pids.server);
const direct = tally(join(directory, `perf-in-process-${concurrency}.data`), pids.in_process);
const perCall = (ms: number | undefined): string => ((ms ?? 0) / calls).toFixed(3).padStart(7);

function table(title: string, pick: (side: Tally) => Map<string, number>): void {
  const names = new Set([...pick(http).keys(), ...pick(direct).keys()]);
  const rows = [...names].map((name) => ({ name, http: pick(http).get(name) ?? 0, direct: pick(direct).get(name) ?? 0 })).sort((a, b) => Math.max(b.http, b.direct) - Math.max(a.http, a.direct)).slice(0, top);
  console.log(`\n${title} (ms of CPU a call)\n   server  in-process  difference`);
  for (const row of rows) console.log(`  ${perCall(row.http)}  ${perCall(row.direct)}  ${perCall(row.http - row.direct)}  ${row.name}`);
}

console.log(`CPU sampled at concurrency ${concurrency}, ${calls} calls a side: server ${perCall(http.ms)} ms a call, in-process ${perCall(direct.ms)} ms a call`);
table('by group', (side) => side.groups);
table('by module', (side) => side.modules);
table('by function (the innermost of this project or a package)', (side) => side.functions);
if (values.drill !== undefined) table(`${values.drill}, by its innermost frames`, (side) => side.drilled);
