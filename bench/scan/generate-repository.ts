import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { initRepository } from '../../test/helpers/git.js';
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
  child.stdin!.end(`${parts.join('\n')}\n`);
  await done;
  await execFileAsync('git', ['reset', '-q', '--hard', 'main'], { cwd: repo });
}
