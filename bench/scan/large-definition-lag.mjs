// Review Z14, Z14-3: how long one large definition holds `hldp serve`'s event loop in a small registry's rescan. A local
// git repository of one tool is served; a commit adds a definition of KEYS unknown keys (`u0: 1` …; 90,000 is 0.89 MB)
// and POST /v1/scan picks it up while /healthz is asked back to back: the longest wait of a /healthz, the scan's wall
// time and the CPU time of the gateway's main thread over the rescan (/proc: the event loop's thread).
// Usage: node bench/scan/large-definition-lag.mjs BIN [KEYS] (BIN: an `hldp` entry, e.g. $PWD/bin/hldp.js, or a second
// checkout's to compare; run the two alternately, several pairs, side by side in one shell loop).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const [bin, keys] = [process.argv[2], Number(process.argv[3] ?? 90_000)];
const root = mkdtempSync(join(tmpdir(), 'hldp-large-lag-'));
const repo = join(root, 'repo');
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { stdio: 'pipe' });
const write = (path, text) => (mkdirSync(join(repo, path, '..'), { recursive: true }), writeFileSync(join(repo, path), text));
const head = (name) => [`name: ${name}`, `display: ${name}`, `intent: a definition named ${name}`, 'method: run', 'executor: shell', 'params_schema: {}', 'shell: { argv: [echo, hi] }', 'author: A', 'created: 2026-12-06', 'why: review Z14-3'];
mkdirSync(repo);
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
git('config', 'user.email', 'b@example.com');
git('config', 'user.name', 'bench');
write('tools/alpha/TOOL.hdlp', `${head('alpha').join('\n')}\n`);
git('add', '-A');
git('commit', '-qm', 'alpha');

const env = { ...process.env, HLDP_CACHE_DIR: join(root, 'cache'), HLDP_DATA_DIR: join(root, 'data'), HLDP_WORKSPACE: root, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '3600000' };
const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--repo', repo], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
const url = await new Promise((resolve, reject) => {
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    const match = / at (http:\/\/[\d.:]+)\n/.exec(stderr);
    if (match) resolve(match[1]);
  });
  child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
});
const loopCpuMs = () => {
  const fields = readFileSync(`/proc/${child.pid}/task/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
try {
  await (await fetch(`${url}/healthz`)).text();
  write('tools/many/TOOL.hdlp', [...head('many'), ...Array.from({ length: keys }, (_, i) => `u${i}: 1`), ''].join('\n'));
  git('add', '-A');
  git('commit', '-qm', 'many');
  const cpu0 = loopCpuMs();
  const t0 = performance.now();
  let done = false;
  const scan = fetch(`${url}/v1/scan`, { method: 'POST' }).then(async (answer) => ((done = true), answer.status, (await answer.json()).errors.length));
  let longest = 0;
  let asked = 0;
  while (!done) {
    const t = performance.now();
    await (await fetch(`${url}/healthz`)).text();
    longest = Math.max(longest, performance.now() - t);
    asked++;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const errors = await scan;
  const scanMs = performance.now() - t0;
  console.log(JSON.stringify({ bin, keys, errors, scanMs: Math.round(scanMs), longestHealthzMs: Math.round(longest), healthzAsked: asked, loopCpuMs: loopCpuMs() - cpu0, load: loadavg()[0].toFixed(1) }));
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(root, { recursive: true, force: true });
}
