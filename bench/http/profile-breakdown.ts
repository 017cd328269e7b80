// Where a process's CPU went during bench/http's loads, from the profiles `run.ts --cpu-prof DIR` writes: the server's
// samples within the HTTP load of one concurrency, and the in-process side's load of the same concurrency; each sample
// charged to the source module its function is in (the CLI's bundle keeps esbuild's `// dist/…` markers), grouped.
// Usage: npx tsx bench/http/profile-breakdown.ts DIR [--concurrency 16] [--calls 2000] [--top 25]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Profile, ProfileNode } from '../cpu-profile.js';


const { values, positionals } = parseArgs({ allowPositionals: true, options: { concurrency: { type: 'string', default: '16' }, calls: { type: 'string', default: '2000' }, top: { type: 'string', default: '25' } } });
const [directory] = positionals;
if (!directory) {
  process.stderr.write('usage: npx tsx bench/http/profile-breakdown.ts DIR [--concurrency 16] [--calls 2000] [--top 25]\n');
  process.exit(2);
}
const concurrency = Number(values.concurrency);
const calls = Number(values.calls);
const top = Number(values.top);

// the bundle's module markers, per file: `// dist/gateway/http/api-routes.js` opens each module's code
const markers = new Map<string, Array<{ line: number; module: string }>>();
function moduleOf(url: string, line: number): string {
  if (url === '') return '';
  if (!url.startsWith('file://')) return url;
  const path = fileURLToPath(url);
  const shown = path.replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*?\/(src|dist|bench|bin)\//, '$1/');
  if (!/\/dist\/bundle\//.test(path)) return shown;
  let list = markers.get(path);
  if (!list) {
    list = [];
    readFileSync(path, 'utf8').split('\n').forEach((text, index) => {
      const marker = /^\/\/ ((?:src|dist|node_modules)\/\S+)$/.exec(text);
      // the CommonJS bundle is made from tsc's dist/: named as its source
      if (marker) list!.push({ line: index, module: marker[1]!.replace(/^dist\/(.*)\.js$/, 'src/$1.ts') });
    });
    markers.set(path, list);
  }
  let found = shown;
  for (const marker of list) {
    if (marker.line > line) break;
    found = marker.module;
  }
  return found;
}

/** The group a module belongs to, for the breakdown's first table. */
function groupOf(module: string, functionName: string): string {
  if (module === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (module.startsWith('node:')) return /child_process|spawn/.test(module) ? 'node: child_process' : /http|net|stream|_http/.test(module) ? 'node: http, net, streams' : 'node: other';
  const modules = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (modules) return `npm: ${modules[1]}`;
  const folder = /^src\/([^/]+)(?:\/([^/]+)\/)?/.exec(module);
  if (folder) return folder[1] === 'gateway' && folder[2] ? `src/gateway/${folder[2]}` : `src/${folder[1]}`;
  return module;
}

interface Breakdown {
  cpuMs: number;
  groups: Map<string, number>;
  modules: Map<string, number>;
  inclusive: Map<string, number>;
}

/** Self time by group and module, and inclusive time by function, of the samples within [from, to] µs (all when absent). */
function breakdown(profile: Profile, window?: { from_us: number; to_us: number }): Breakdown {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const result: Breakdown = { cpuMs: 0, groups: new Map(), modules: new Map(), inclusive: new Map() };
  const add = (map: Map<string, number>, key: string, ms: number): void => void map.set(key, (map.get(key) ?? 0) + ms);
  let clock = profile.startTime;
  profile.samples.forEach((id, position) => {
    clock += profile.timeDeltas[position]!;
    // a sample stands for the time until the next one
    const ms = (profile.timeDeltas[position + 1] ?? 0) / 1000;
    if (window && (clock < window.from_us || clock > window.to_us)) return;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    result.cpuMs += ms;
    const module = moduleOf(node.callFrame.url, node.callFrame.lineNumber);
    add(result.groups, groupOf(module, node.callFrame.functionName), ms);
    add(result.modules, `${module || node.callFrame.functionName}`, ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const name = `${frame.functionName || '(anonymous)'} ${moduleOf(frame.url, frame.lineNumber)}`;
      if (seen.has(name)) continue;
      seen.add(name);
      add(result.inclusive, name, ms);
    }
  });
  return result;
}

function table(title: string, counts: Map<string, number>, cpuMs: number, limit: number): string {
  const rows = [...counts].sort((a, b) => b[1] - a[1]).slice(0, limit);
  return [`${title}`, ...rows.map(([name, ms]) => `  ${(ms / calls).toFixed(3).padStart(7)} ms/call ${((100 * ms) / cpuMs).toFixed(1).padStart(5)}%  ${name}`)].join('\n');
}

function report(name: string, profile: Profile, window?: { from_us: number; to_us: number }): void {
  const found = breakdown(profile, window);
  console.log(`\n## ${name}: ${found.cpuMs.toFixed(0)} ms of CPU sampled, ${(found.cpuMs / calls).toFixed(3)} ms a call (${calls} calls)`);
  console.log(table('self time by group', found.groups, found.cpuMs, top));
  console.log(table('self time by module', found.modules, found.cpuMs, top));
  console.log(table('inclusive time by function', found.inclusive, found.cpuMs, top * 2));
}

const windows = JSON.parse(readFileSync(join(directory, 'http-windows.json'), 'utf8')) as Array<{ concurrency: number; from_us: number; to_us: number }>;
const window = windows.find((each) => each.concurrency === concurrency);
if (!window) throw new Error(`no HTTP load at concurrency ${concurrency} in ${directory}/http-windows.json`);
report(`server, HTTP load at concurrency ${concurrency}`, JSON.parse(readFileSync(join(directory, 'server.cpuprofile'), 'utf8')) as Profile, window);
report(`in-process executor at concurrency ${concurrency}`, JSON.parse(readFileSync(join(directory, `in-process-${concurrency}.cpuprofile`), 'utf8')) as Profile);
