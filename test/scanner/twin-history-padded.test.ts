// Review Z5 (Z5-1, Z5-2): the walk that dates case twins at a cold start sees 300 first-parent commits, and 300 of the
// lines merges brought in. A pusher who deleted the reviewed tool, added a twin, then pushed 301 empty commits before
// restoring the reviewed tool byte for byte (a diff that shows only the twin added) made the twin look older than the
// walk reaches, and the twin took the name; so did 301 empty commits on a merged line between the reviewed tool's
// deletion and the merge. Now a walk that stops short of the first commit with the winner still there, and the other
// claim appearing inside it, decides nothing, and a merged line walked only in part fails every clash closed: a real
// repository, a real `hldp scan` with an empty cache, neither twin served.
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-twin-padded-');

const tool = (name: string, said: string): string => makeToolYaml(name, { intent: `says ${said}` });

// `count` empty commits on top of the current branch, made by one git fast-import
async function pad(repo: string, count: number): Promise<void> {
  const head = await git(repo, 'rev-parse', 'HEAD');
  const branch = await git(repo, 'symbolic-ref', 'HEAD');
  const stream = Array.from({ length: count }, (_, at) => `commit ${branch}\ncommitter a <a@b> ${1700000000 + at} +0000\ndata 8\npad ${String(at).padStart(4, '0')}\n${at === 0 ? `from ${head}\n` : ''}\n`).join('');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet', '--force'], { cwd: repo, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import: ${stderr}`))));
    child.stdin.end(stream);
  });
  await git(repo, 'reset', '-q', '--hard', branch);
}

async function scanned(repo: string): Promise<{ tools: string[]; duplicates: Array<{ file: string; message: string }> }> {
  const run = await folder.scan(repo, { timeoutMs: 110_000 });
  expect(run.code, run.stderr).toBe(0);
  const index = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<{ file: string; code: string; message: string }> };
  return { tools: index.tools.map((one) => one.name), duplicates: index.errors.filter((error) => error.code === 'DUPLICATE_NAME') };
}

describe('hldp scan with an empty cache, where a pusher padded history past the walk\'s reach (review Z5)', () => {
  it('serves neither twin where 301 empty commits lie between the reviewed tool\'s removal (with the twin added) and its return', async () => {
    const repo = await initRepository(join(folder.path, 'first-parent'));
    await commitFiles(repo, { 'tools/base/TOOL.hdlp': tool('base', 'base') }, 'base');
    const added = await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'REVIEWED') }, 'reviewed deploy');
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': null, 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'X: twin in, reviewed out');
    await pad(repo, 301);
    await git(repo, 'checkout', '-q', added, '--', 'tools/deploy');
    await git(repo, 'commit', '-qm', 'Y: reviewed back');
    const result = await scanned(repo);
    // on main: Deploy served, "kept because it held that name first in git history"
    expect(result.tools).not.toContain('deploy');
    expect(result.tools).not.toContain('Deploy');
    expect(result.duplicates.map((one) => one.file).sort()).toEqual(['tools/Deploy/TOOL.hdlp', 'tools/deploy/TOOL.hdlp']);
    for (const { message } of result.duplicates) expect(message).toContain('was there where the walk stopped (after the 300 commits it looks at)');
  }, 180_000);

  it('serves neither twin where 301 empty commits on a merged line lie between the reviewed tool\'s removal and the merge', async () => {
    const repo = await initRepository(join(folder.path, 'merged'));
    const base = await commitFiles(repo, { 'tools/base/TOOL.hdlp': tool('base', 'base') }, 'base');
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'REVIEWED') }, 'reviewed deploy');
    const main = await commitFiles(repo, { 'tools/w1/TOOL.hdlp': tool('w1', 'work') }, 'main work');
    await git(repo, 'checkout', '-q', '-b', 'pusher', base);
    await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'pusher adds Deploy');
    await git(repo, 'checkout', '-q', '-b', 'side', main);
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': null }, 'tidy');
    await pad(repo, 301);
    await git(repo, 'checkout', '-q', 'pusher');
    await git(repo, 'merge', '-q', '--no-edit', 'side', '-m', 'merge main');
    await git(repo, 'checkout', '-q', main, '--', 'tools/deploy');
    await git(repo, 'commit', '-qm', 'restore deploy');
    const restored = await git(repo, 'rev-parse', 'HEAD');
    await git(repo, 'checkout', '-q', 'main');
    await git(repo, 'merge', '-q', '--ff-only', restored);
    expect(await git(repo, 'diff', '--name-only', main, restored)).toBe('tools/Deploy/TOOL.hdlp');
    const result = await scanned(repo);
    // on main: Deploy served
    expect(result.tools).not.toContain('deploy');
    expect(result.tools).not.toContain('Deploy');
    for (const { message } of result.duplicates) expect(message).toContain("the lines merges brought in reach past the walk's 300 commits");
  }, 180_000);
});
