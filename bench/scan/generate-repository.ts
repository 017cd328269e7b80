import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { initRepository } from '../../test/helpers/git.js';
import { usage } from '../usage.js';
import { forget, removeOnSignal } from '../work-folder.js';
import { toolYaml } from './tool-yaml.js';

const execFileAsync = promisify(execFile);

/** The name of generated tool number `index` (sorted as numbered). */
export function toolName(index: number): string {
  return `tool-${String(index).padStart(6, '0')}`;
}

/**
 * A git repository at `repo` (branch main, checked out) of `size` generated tools in one commit, written with
 * `git fast-import` (seconds at 100,000 files, where `git add` takes minutes). Generated, never committed.
 */
export async function generateRepository(repo: string, size: number): Promise<void> {
  await initRepository(repo);
  const parts: string[] = ['commit refs/heads/main', 'committer Bench <bench@example.test> 1700000000 +0000', 'data 5', 'bench'];
  for (let index = 0; index < size; index++) {
    const name = toolName(index);
    const text = toolYaml(name);
    parts.push(`M 100644 inline tools/${name}/TOOL.hdlp`, `data ${Buffer.byteLength(text)}`, text);
  }
  const child = execFile('git', ['fast-import', '--quiet'], { cwd: repo, maxBuffer: 1 << 26 });
  const done = new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)))));
  // a fast-import that died (Ctrl-C reaches it too) is reported by its exit code, not by an EPIPE thrown from here
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(`${parts.join('\n')}\n`);
  await done;
  await execFileAsync('git', ['reset', '-q', '--hard', 'main'], { cwd: repo });
}

// Run directly, it makes the repository of a README row's recipe (review userZ3, Z3-5: the row named only this
// function): `npx tsx bench/scan/generate-repository.ts DIR 100000`. Imported, it runs nothing.
if (process.argv[1] && resolvePath(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, count] = process.argv.slice(2);
  const size = Number(count);
  if (!dir || !count || !Number.isInteger(size) || size < 1) usage('npx tsx bench/scan/generate-repository.ts DIR SIZE (a new or empty folder DIR; SIZE tools, e.g. 100000)');
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    process.stderr.write(`generate-repository.ts: ${dir} is not empty: give a new or empty folder\n`);
    process.exit(2);
  }
  // a half-made repository is no use: Ctrl-C removes the folder if this made it
  if (!existsSync(dir)) removeOnSignal(resolvePath(dir));
  const started = performance.now();
  await generateRepository(dir, size);
  forget(resolvePath(dir));
  process.stdout.write(`${resolvePath(dir)}: a git repository (branch main) of ${size} generated tools, in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
