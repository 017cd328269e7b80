// RSS, arrayBuffers and threads of a cold `hldp serve --repo REPO` (fresh cache and data folders) at matching: ready and
// 1, 2, 3, 5, 8 and 12 s after it (review userZ8, L3; memz23). Run each build's bin alternately, several pairs.
// Usage: node bench/scan/ready-memory.mjs BIN REPO   (REPO e.g. a smart-HTTP URL from bench/scan/serve-git.ts)
// Extra environment for the server: MEMZ_ENV='{"MALLOC_ARENA_MAX":"2"}'
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
const [bin, repo] = process.argv.slice(2);
if (!bin || !repo) throw new Error('usage: node bench/scan/ready-memory.mjs BIN REPO');
const work = mkdtempSync(join(tmpdir(), 'ready-memory-'));
const series = join(work, 'series.jsonl');
const preload = fileURLToPath(new URL('./memory-series.cjs', import.meta.url));
const env = { ...process.env, HLDP_CACHE_DIR: `${work}/cache`, HLDP_DATA_DIR: `${work}/data`, HLDP_WORKSPACE: work, HLDP_LOG_LEVEL: 'warn', MEMZ_SERIES: series, NODE_OPTIONS: `--require ${preload}`, ...JSON.parse(process.env.MEMZ_ENV ?? '{}') };
const child = spawn(process.execPath, [bin, 'serve', '--repo', repo, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
const url = await new Promise((resolve, reject) => {
  child.stderr.on('data', (chunk) => { stderr += chunk; const m = / at (http:\/\/[\d.:]+)\n/.exec(stderr); if (m) resolve(m[1]); });
  child.once('exit', () => reject(new Error(stderr)));
});
for (;;) {
  const health = await (await fetch(`${url}/healthz`)).json();
  if (health.matching === undefined || health.matching === 'ready') break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const ready = Date.now();
await new Promise((resolve) => setTimeout(resolve, 12_500));
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
const rows = readFileSync(series, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
const at = (s) => { const row = rows.filter((r) => r.t <= ready + s * 1000).at(-1); return row ? `${(row.rss / 1024).toFixed(0)}/${(row.ab / 1048576).toFixed(0)}/${row.th}` : '-'; };
console.log(`${bin}: RSS MB/arrayBuffers MB/threads at ready+0,1,2,3,5,8,12 s: ${[0, 1, 2, 3, 5, 8, 12].map(at).join('  ')}  load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
rmSync(work, { recursive: true, force: true });
