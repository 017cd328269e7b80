// Issue #18 (cold23): the main thread's CPU and the collections of reading every definition of a clone as a cold scan
// does (16 readers, no parse). Usage: node bench/scan/read-cost.mjs TREE GITDIR [ROUNDS] (TREE: a built worktree; GITDIR:
// a clone's .git, e.g. the repo/.git a cold `hldp scan --repo URL` left under $HLDP_CACHE_DIR/sources/*/).
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
const [tree, gitdir, rounds = '1'] = process.argv.slice(2);
const { readGitSnapshot } = await import(`${tree}/dist/scanner/sources/git-snapshot.js`);
const cpu = () => { const s = readFileSync('/proc/thread-self/stat', 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const gc = { n: 0, ms: 0, minor: 0, major: 0 };
new PerformanceObserver((list) => { for (const e of list.getEntries()) { gc.n++; gc.ms += e.duration; if (e.detail?.kind === 1) gc.minor++; else gc.major++; } }).observe({ entryTypes: ['gc'] });
const head = readFileSync(`${gitdir}/refs/heads/main`, 'utf8').trim();
for (let r = 0; r < Number(rounds); r++) {
  const store = { gitdir, cache: {} };
  const c0 = cpu(); const t0 = performance.now();
  const snap = await readGitSnapshot(store, head, 4 * 1024 * 1024);
  const listing = await snap.listEntries();
  const c1 = cpu();
  let next = 0, bytes = 0, n = 0;
  const reader = async () => { while (next < listing.length) { const e = listing[next++]; const f = await snap.read(e); bytes += f.content?.length ?? 0; n++; } };
  await Promise.all(Array.from({ length: 16 }, reader));
  snap.release?.();
  const c2 = cpu();
  await new Promise((r) => setTimeout(r, 50));
  console.log(`round ${r}: ${n} read, ${bytes} bytes; list ${(c1 - c0).toFixed(2)} s, read ${(c2 - c1).toFixed(2)} s CPU, wall ${((performance.now() - t0) / 1000).toFixed(2)} s; gc n=${gc.n} (minor ${gc.minor}, major ${gc.major}) ${gc.ms.toFixed(0)} ms`);
  gc.n = gc.ms = gc.minor = gc.major = 0;
}
