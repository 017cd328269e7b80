// The modules a real `hldp serve` over REPO (warm cache in WORK) loads before it says it listens (issue #18, modules
// loaded when first needed): every ES module (a loader hook) and CommonJS file (a hook on `require`'s loader), counted
// by package (`npm:NAME`) and by our own folder (`dist:FOLDER`). Run it over each side's built bin/hldp.js.
// Usage: npx tsx bench/scan/start-modules.ts BIN REPO WORK [--list]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { usage } from '../usage.js';

const [bin, repo, work] = process.argv.slice(2) as [string, string, string];
if (!bin || !repo || !work) usage('npx tsx bench/scan/start-modules.ts BIN REPO WORK [--list]');
const folder = mkdtempSync(join(tmpdir(), 'hldp-start-modules-'));
const log = join(folder, 'modules.log');
// runs in the loader's thread: each ES module's URL as it is loaded
const esmHook = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url.slice(7) + '\\n'); return next(url, context); }`;
// runs in the main thread before the CLI: registers the hook above, and logs each CommonJS file as it is compiled
const preload = `import Module, { register } from 'node:module'; import { appendFileSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(esmHook)}));
const js = Module._extensions['.js'];
Module._extensions['.js'] = function (module, filename) { appendFileSync(${JSON.stringify(log)}, filename + '\\n'); return js.call(this, module, filename); };`;
const env = { ...process.env, HLDP_CACHE_DIR: `${work}/cache`, HLDP_DATA_DIR: `${work}/data`, HLDP_WORKSPACE: work, HLDP_LOG_LEVEL: 'warn' };
const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, bin, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
await new Promise<void>((resolve, reject) => {
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
    if (/ at http:\/\/[\d.:]+\n/.test(stderr)) resolve();
  });
  child.once('exit', () => reject(new Error(stderr)));
});
const files = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
rmSync(folder, { recursive: true, force: true });
const group = (file: string): string => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]?.replace(/^/, 'npm:') ?? /\/dist\/([^/]+)\//.exec(file)?.[1]?.replace(/^/, 'dist:') ?? 'other';
const counts = new Map<string, number>();
for (const file of files) counts.set(group(file), (counts.get(group(file)) ?? 0) + 1);
const byCount = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
console.log(JSON.stringify({ bin, load: loadavg().map((x) => Math.round(x * 10) / 10), modules_before_listening: files.length, by_package: byCount, ...(process.argv.includes('--list') ? { files } : {}) }));
