// What git history costs a cold scan at a name clash (review Z, Z3): one scan with an empty cache of a repository of
// 1,000 tools and 300 commits each changing one, (a) whose case twin Tool-0000 came in the last commit (the walk stops
// after one commit), (b) whose twin was there from the first commit (the walk goes to its 300-commit bound), (c) the
// commit before the twin (no clash). Prints CPU ms of each scan; `--case recent|old|none` scans that one only (one
// process a scan, so that no scan pays another's module warm-up: alternate the code before and after, case by case).
//   npx tsx bench/scan/clash-history.ts [--case C] [--src DIR]   (DIR: another checkout's src/, e.g. main's)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const src = resolve(option('--src') ?? join(import.meta.dirname, '../../src'));
const only = option('--case');
const { scanOnce } = (await import(pathToFileURL(join(src, 'scanner/index.ts')).href)) as typeof import('../../src/scanner/index.js');

const tool = (name: string, intent: string): string => `name: ${name}\ndisplay: d\nintent: ${intent}\nmethod: exec\nexecutor: gatekeeper\nparams_schema: {}\nauthor: T\ncreated: 2026-05-31\nwhy: w\n`;
const commit = (files: Record<string, string>, message: string): string =>
  `commit refs/heads/main\ncommitter a <a@a> 1700000000 +0000\ndata ${Buffer.byteLength(message)}\n${message}\n` +
  Object.entries(files).map(([path, text]) => `M 100644 inline ${path}\ndata ${Buffer.byteLength(text)}\n${text}\n`).join('');

function repository(root: string, twinFirst: boolean): string {
  const first: Record<string, string> = {};
  for (let index = 0; index < 1000; index++) first[`tools/tool-${String(index).padStart(4, '0')}/TOOL.hdlp`] = tool(`tool-${String(index).padStart(4, '0')}`, 'does things');
  const twin = { 'tools/Tool-0000/TOOL.hdlp': tool('Tool-0000', 'newcomer') };
  let stream = commit(twinFirst ? { ...first, ...twin } : first, 'start');
  for (let change = 0; change < 300; change++) {
    const name = `tool-${String(1 + (change % 999)).padStart(4, '0')}`;
    stream += commit({ [`tools/${name}/TOOL.hdlp`]: tool(name, `does things ${change}`) }, `change ${change}`);
  }
  if (!twinFirst) stream += commit(twin, 'twin');
  mkdirSync(root, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  execFileSync('git', ['fast-import', '--quiet'], { cwd: root, input: stream });
  return root;
}

const work = mkdtempSync(join(tmpdir(), 'clash-history-'));
try {
  const recent = repository(join(work, 'recent'), false);
  const old = repository(join(work, 'old'), true);
  const cases = [['recent', 'twin in the last commit', recent, undefined], ['old', 'twin since the first commit', old, undefined], ['none', 'no clash', recent, 'main~1']] as const;
  for (const [name, label, repo, ref] of cases) {
    if (only !== undefined && only !== name) continue;
    const cacheDir = mkdtempSync(join(work, 'cache-'));
    const before = process.cpuUsage();
    const index = await scanOnce(repo, { cacheDir, ...(ref ? { ref } : {}) });
    const used = process.cpuUsage(before);
    const kept = index.errors.find((error) => error.code === 'DUPLICATE_NAME')?.message.replace(/.*kept because /, '').slice(0, 60) ?? '-';
    console.log(`${label}: ${Math.round((used.user + used.system) / 1000)} ms CPU, ${index.tools.length} tools; kept because ${kept}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
