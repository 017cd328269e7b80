// Review Z4, F3: at a cold start (no previous index) git history decides which case twin keeps a name, and a pusher
// shaped history so that their twin took the reviewed tool's name, with no force push and a diff showing only the twin
// added: (a) an octopus merge of 172 parents, whose last parents were past the 8,192 bytes of a commit read; (b) the
// reviewed tool deleted just before a merge and restored byte for byte after it; and the same on a line with no merge.
// Each is a real repository scanned by a real `hldp scan` with an empty cache: neither twin is served. The shapes an
// honest history has (the twin pushed after the reviewed tool, across merges of other work) still decide.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-twin-rewrite-');

const tool = (name: string, said: string): string => makeToolYaml(name, { intent: `says ${said}` });

interface Scanned {
  tools: string[];
  duplicates: Array<{ file: string; message: string }>;
}

async function scan(repo: string): Promise<Scanned> {
  const run = await folder.scan(repo, { timeoutMs: 110_000 });
  expect(run.stderr).not.toMatch(/FATAL|heap/);
  expect(run.code).toBe(0);
  const index = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<{ file: string; code: string; message: string }> };
  return { tools: index.tools.map((one) => one.name), duplicates: index.errors.filter((error) => error.code === 'DUPLICATE_NAME') };
}

/** A repository with `tools/base/`, then reviewed `tools/deploy/` and three commits of work on main; returns the base commit and main's head. */
async function reviewed(): Promise<{ repo: string; base: string; added: string; main: string }> {
  const repo = await initRepository(join(folder.path, 'repo'));
  const base = await commitFiles(repo, { 'tools/base/TOOL.hdlp': tool('base', 'base') }, 'base');
  const added = await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': tool('deploy', 'REVIEWED') }, 'reviewed deploy');
  for (const round of [1, 2, 3]) await commitFiles(repo, { [`tools/w${round}/TOOL.hdlp`]: tool(`w${round}`, 'work') }, `main work ${round}`);
  return { repo, base, added, main: await git(repo, 'rev-parse', 'HEAD') };
}

function expectNeither(scanned: Scanned, why: RegExp): void {
  expect(scanned.tools).not.toContain('deploy');
  expect(scanned.tools).not.toContain('Deploy');
  expect(scanned.duplicates.map((one) => one.file).sort()).toEqual(['tools/Deploy/TOOL.hdlp', 'tools/deploy/TOOL.hdlp']);
  for (const { message } of scanned.duplicates) expect(message).toMatch(why);
}

describe('hldp scan with an empty cache, where a pusher shaped history so that a case twin looks older', () => {
  it('serves neither twin past an octopus merge of 172 parents whose last parent is main (a fast-forward)', async () => {
    const { repo, base, main } = await reviewed();
    await git(repo, 'checkout', '-q', '-b', 'pusher', base);
    const pusher = await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'pusher adds Deploy');
    // 170 empty commits on base, each a parent of the merge between the pusher's branch (first) and main (last)
    const stream = Array.from({ length: 170 }, (_, at) => `commit refs/dummy/d${at}\ncommitter a <a@b> 1700000000 +0000\ndata 9\ndummy ${String(at).padStart(3, '0')}\nfrom ${base}\n\n`).join('');
    await gitWithInput(repo, stream, 'fast-import', '--quiet');
    const dummies = (await git(repo, 'for-each-ref', '--format=%(objectname)', 'refs/dummy/')).split('\n');
    expect(new Set(dummies).size).toBe(170);
    await git(repo, 'checkout', '-q', 'main');
    await writeFiles(repo, { 'tools/Deploy/TOOL.hdlp': await git(repo, 'show', `${pusher}:tools/Deploy/TOOL.hdlp`).then((text) => `${text}\n`) });
    await git(repo, 'add', '-A');
    const tree = await git(repo, 'write-tree');
    const merge = await git(repo, 'commit-tree', '-p', pusher, ...dummies.flatMap((one) => ['-p', one]), '-p', main, '-m', 'merge', tree);
    expect(await git(repo, 'merge-base', '--is-ancestor', main, merge).then(() => true)).toBe(true);
    await git(repo, 'reset', '-q', '--hard', merge);
    expect(Number(await git(repo, 'cat-file', '-s', 'HEAD'))).toBeGreaterThan(8192);
    // on main: tools 'Deploy' served, tools/deploy/ DUPLICATE_NAME "kept because it held that name first in git history"
    expectNeither(await scan(repo), new RegExp(`neither is served: git history cannot tell which claim is older: tools/deploy/TOOL\\.hdlp came in through the merge commit ${merge.slice(0, 12)}`));
  }, 120_000);

  it('serves neither twin where main\'s line deleted the reviewed tool just before the merge and it was restored after', async () => {
    const { repo, base, main } = await reviewed();
    await git(repo, 'checkout', '-q', '-b', 'pusher', base);
    await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'pusher adds Deploy');
    await git(repo, 'checkout', '-q', '-b', 'side', main);
    await git(repo, 'rm', '-rq', 'tools/deploy');
    await git(repo, 'commit', '-qm', 'tidy');
    await git(repo, 'checkout', '-q', 'pusher');
    await git(repo, 'merge', '-q', '--no-edit', 'side', '-m', 'merge main');
    await git(repo, 'checkout', '-q', main, '--', 'tools/deploy');
    await git(repo, 'commit', '-qm', 'restore deploy');
    const restored = await git(repo, 'rev-parse', 'HEAD');
    await git(repo, 'checkout', '-q', 'main');
    await git(repo, 'merge', '-q', '--ff-only', restored);
    // what a reviewer of the push sees: only the twin added
    expect(await git(repo, 'diff', '--name-only', main, restored)).toBe('tools/Deploy/TOOL.hdlp');
    // on main: tools 'Deploy' served, tools/deploy/ DUPLICATE_NAME "kept because it held that name first in git history"
    expectNeither(await scan(repo), new RegExp(`neither is served: git history cannot tell which claim is older: commit ${main.slice(0, 12)}, on a line a merge brought in, held tools/deploy/TOOL\\.hdlp without tools/Deploy/TOOL\\.hdlp`));
  }, 120_000);

  it('serves neither twin over a remote (depth-1 clone, history fetched for the clash) where main\'s line deleted the reviewed tool before the merge', async () => {
    const served = await folder.serve();
    const { work } = served;
    const base = await served.push({ 'tools/base/TOOL.hdlp': tool('base', 'base') }, 'base');
    await served.push({ 'tools/deploy/TOOL.hdlp': tool('deploy', 'REVIEWED') }, 'reviewed deploy');
    const main = await served.push({ 'tools/w1/TOOL.hdlp': tool('w1', 'work') }, 'main work');
    await git(work, 'checkout', '-q', '-b', 'pusher', base);
    await commitFiles(work, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'pusher adds Deploy');
    await git(work, 'checkout', '-q', '-b', 'side', main);
    await commitFiles(work, { 'tools/deploy/TOOL.hdlp': null }, 'tidy');
    await git(work, 'checkout', '-q', 'pusher');
    await git(work, 'merge', '-q', '--no-edit', 'side', '-m', 'merge main');
    await git(work, 'checkout', '-q', main, '--', 'tools/deploy');
    await git(work, 'commit', '-qm', 'restore deploy');
    await git(work, 'checkout', '-q', 'main');
    await git(work, 'merge', '-q', '--ff-only', 'pusher');
    await git(work, 'push', '-q', served.bare, 'main');
    // on main: tools 'Deploy' served
    expectNeither(await scan(served.url), new RegExp(`neither is served: git history cannot tell which claim is older: commit ${main.slice(0, 12)}, on a line a merge brought in, held tools/deploy/TOOL\\.hdlp without tools/Deploy/TOOL\\.hdlp`));
  }, 120_000);

  it('serves neither twin where the reviewed tool was deleted, the twin added and the reviewed tool restored, with no merge', async () => {
    const { repo, added, main } = await reviewed();
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': null }, 'tidy');
    await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'add Deploy');
    await git(repo, 'checkout', '-q', main, '--', 'tools/deploy');
    await git(repo, 'commit', '-qm', 'restore deploy');
    expect(await git(repo, 'diff', '--name-only', main, 'HEAD')).toBe('tools/Deploy/TOOL.hdlp');
    // on main: tools 'Deploy' served (present two commits back, the restored deploy one)
    expectNeither(await scan(repo), new RegExp(`neither is served: git history cannot tell which claim is older: tools/deploy/TOOL\\.hdlp was there at commit ${added.slice(0, 12)}, before tools/Deploy/TOOL\\.hdlp was there for good, and came back later`));
  }, 120_000);

  it('serves neither twin where a commit on the way has a header over 1 MiB, which is not read', async () => {
    const { repo } = await reviewed();
    const added = await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'add Deploy');
    // the scanned commit, its header padded past the bound by a continued header field (as a signature's lines are)
    const tree = await git(repo, 'rev-parse', 'HEAD^{tree}');
    const padding = Array.from({ length: 1100 }, () => ` ${'x'.repeat(1023)}`).join('\n');
    const object = `tree ${tree}\nparent ${added}\nauthor a <a@b> 1700000000 +0000\ncommitter a <a@b> 1700000000 +0000\nx-padding start\n${padding}\n\nbig header\n`;
    const big = await gitWithOutput(repo, object, 'hash-object', '-t', 'commit', '-w', '--literally', '--stdin');
    await git(repo, 'reset', '-q', '--soft', big);
    expectNeither(await scan(repo), /neither is served: git history could not be read \(commit [0-9a-f]{40} has a header over 1 MiB/);
  }, 120_000);

  it('still serves the reviewed tool that was deleted and restored before the twin was pushed, across a merge of other work', async () => {
    const { repo, main } = await reviewed();
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': null }, 'retired');
    await git(repo, 'checkout', '-q', main, '--', 'tools/deploy');
    await git(repo, 'commit', '-qm', 'back again');
    await git(repo, 'checkout', '-q', '-b', 'docs');
    await commitFiles(repo, { 'README.md': 'docs\n', 'tools/build/TOOL.hdlp': tool('build', 'build') }, 'docs');
    await git(repo, 'checkout', '-q', 'main');
    await commitFiles(repo, { 'NOTES.md': 'meanwhile\n' }, 'meanwhile');
    await git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'docs');
    const added = await commitFiles(repo, { 'tools/Deploy/TOOL.hdlp': tool('Deploy', 'NEWCOMER') }, 'add Deploy');
    const scanned = await scan(repo);
    expect(scanned.tools).toContain('deploy');
    expect(scanned.tools).not.toContain('Deploy');
    expect(scanned.duplicates).toEqual([expect.objectContaining({ file: 'tools/Deploy/TOOL.hdlp', message: expect.stringContaining(`kept because it held that name first in git history (tools/Deploy/TOOL.hdlp appeared in commit ${added.slice(0, 12)}`) })]);
  }, 120_000);
});

async function gitWithInput(cwd: string, input: string, ...args: string[]): Promise<void> {
  const { spawn } = await import('node:child_process');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')}: ${stderr}`))));
    child.stdin.end(input);
  });
}

async function gitWithOutput(cwd: string, input: string, ...args: string[]): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
    child.stdin!.end(input);
  });
}
