// The sandbox's look for git folders in a workspace (repositoryGuards), at a launch: this tree's against another
// commit's, alternated in one run, CPU and wall per walk; prints one JSON document.
//   git clone -q . /tmp/walk-ws && npx tsx bench/exec/workspace-walk.ts --old 5b2d967 --workspace /tmp/walk-ws
// The other commit's walk (repository-guards.ts with git-folder.ts and workspace-rules.ts, or before they were split
// out of it, workspace-rules.ts alone) is taken with `git show`, its other imports pointed at this tree's files.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { repositoryGuards } from '../../src/sandbox/repository-guards.js';

const { values } = parseArgs({ options: { old: { type: 'string', default: 'HEAD~1' }, workspace: { type: 'string' }, walks: { type: 'string', default: '50' }, rounds: { type: 'string', default: '10' } } });
if (values.workspace === undefined) throw new TypeError('--workspace FOLDER is required (a clone of this checkout, as the README measures)');
const workspace = values.workspace;
const walks = Number(values.walks);
const rounds = Number(values.rounds);
const sandboxFolder = fileURLToPath(new URL('../../src/sandbox/', import.meta.url));
const walkFiles = ['repository-guards', 'git-folder', 'workspace-rules'];
const oldSource = (name: string): string | undefined => {
  try {
    return execFileSync('git', ['show', `${values.old}:src/sandbox/${name}.ts`], { cwd: sandboxFolder, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
};
const taken = new Map(walkFiles.flatMap((name) => { const source = oldSource(name); return source === undefined ? [] : [[name, source] as const]; }));
const folder = mkdtempSync(join(tmpdir(), 'hldp-walk-'));
for (const [name, source] of taken) {
  writeFileSync(join(folder, `${name}.ts`), source.replaceAll(/from '\.\/([^']+)\.js'/g, (_, imported: string) => `from '${pathToFileURL(join(taken.has(imported) ? folder : sandboxFolder, `${imported}.ts`)).href}'`));
}
const old = (await import(pathToFileURL(join(folder, taken.has('repository-guards') ? 'repository-guards.ts' : 'workspace-rules.ts')).href)) as { repositoryGuards: typeof repositoryGuards };
rmSync(folder, { recursive: true });

const median = (numbers: number[]): number => [...numbers].sort((a, b) => a - b)[numbers.length >> 1]!;
function measure(walk: () => unknown): { wall: number; cpu: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let walk_ = 0; walk_ < walks; walk_++) walk();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - start) / walks, cpu: (used.user + used.system) / 1000 / walks };
}
// the first walks make what a launch makes (hooks, commondir, config.worktree): both then walk the same folders
for (let warm = 0; warm < 20; warm++) (old.repositoryGuards(workspace), repositoryGuards(workspace));
const times = { old: { wall: [] as number[], cpu: [] as number[] }, new: { wall: [] as number[], cpu: [] as number[] } };
for (let round = 0; round < rounds; round++) {
  for (const [name, walk] of [['old', old.repositoryGuards], ['new', repositoryGuards]] as const) {
    const { wall, cpu } = measure(() => walk(workspace));
    times[name].wall.push(wall);
    times[name].cpu.push(cpu);
  }
}
const round3 = (value: number): number => Number(value.toFixed(3));
const summary = (name: 'old' | 'new') => ({ wall_ms: round3(median(times[name].wall)), cpu_ms: round3(median(times[name].cpu)) });
console.log(JSON.stringify({ workspace, old: values.old, walks, rounds, load: Number(loadavg()[0]!.toFixed(1)), cpus: cpus().length, per_walk: { old: summary('old'), new: summary('new') }, new_over_old: { wall: round3(median(times.new.wall) / median(times.old.wall)), cpu: round3(median(times.new.cpu) / median(times.old.cpu)) } }));
