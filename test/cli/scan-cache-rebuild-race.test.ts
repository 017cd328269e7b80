import { spawn } from 'node:child_process';
import { chmod, chown, lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, writeFiles } from '../helpers/git.js';
import { runCli, track } from '../helpers/run-cli.js';
import { describeAsRoot } from '../helpers/needs-root.js';

// Review Z15-2: a scan cache an older build left group-writable (umask 002) is made again at the next start, and its
// own entries removed. Node's rmSync walked them by path while a member of the cache's group could still write in them:
// it swapped a folder it had planted deep inside for a symbolic link to the user's home once the walk had read the
// folder's names, and the user's own files of those names were deleted through the link. Now the entries are moved
// aside in the root (made private first) and removed by coreutils rm, which never follows a link met on its walk.
// The user (this root process) and the group member (uid 65534, in the cache's group 65534), real processes both.

const MEMBER = ['--reuid=65534', '--regid=65534', '--clear-groups', '--'];

const HELLO = [
  'name: hello', 'display: Hello', 'intent: say hello back', 'method: hello', 'executor: shell',
  'shell: { argv: [echo, hello] }', 'params_schema: {}', 'author: someone', 'created: 2026-12-01', 'why: cache race probe', '',
].join('\n');

// the group member's side: from inside the planted folder's parent (its working directory, which follows the folder
// wherever it is moved), it waits for the removal to touch X, then puts a link to the user's home in X's place
const SWAP = `
const fs = require('node:fs');
process.chdir(process.argv[1]);
const before = fs.lstatSync('X', { bigint: true }).mtimeNs;
process.stdout.write('ready\\n');
const until = Date.now() + 120000;
for (;;) {
  let now;
  try { now = fs.lstatSync('X', { bigint: true }).mtimeNs; } catch { now = before; }
  if (now !== before) break;
  if (Date.now() > until) process.exit(3);
}
fs.renameSync('X', 'X.old');
fs.symlinkSync(process.argv[2], 'X');
process.stdout.write('swapped\\n');
`;

// the group member's planting: X holds many files (the walk takes a while in it) and the names of the user's files
const PLANT = `
const fs = require('node:fs');
process.umask(0o002);
const x = process.argv[1] + '/X';
fs.mkdirSync(x + '/important', { recursive: true });
fs.writeFileSync(x + '/precious.txt', '');
for (let i = 0; i < 20000; i += 1) fs.writeFileSync(x + '/f' + i, '');
`;

function asMember(script: string, args: string[]): ReturnType<typeof spawn> {
  return track(spawn('setpriv', [...MEMBER, process.execPath, '-e', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
}

function ended(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
}

let temp: { path: string; cleanup: () => Promise<void> };

describeAsRoot('a group-writable scan cache made again while a member of its group swaps a folder for a link (needs root)', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await writeFiles(join(temp.path, 'repo'), { 'tools/hello/TOOL.hdlp': HELLO });
  }, 60_000);
  afterAll(() => temp?.cleanup());

  it("deletes nothing of the user's outside the cache, uses the cache, and removes what it moved aside by the next start", async () => {
    const home = join(temp.path, 'home');
    await mkdir(join(home, 'important'), { recursive: true });
    await writeFile(join(home, 'precious.txt'), 'do not delete\n');
    await writeFile(join(home, 'important', 'a.txt'), 'data\n');
    // the cache as a build before review Z10-2 left it under umask 002, its group the member's
    const cache = join(home, 'cache');
    const clone = join(cache, 'sources', 'src1', 'clone');
    await mkdir(clone, { recursive: true });
    for (const folder of [cache, join(cache, 'sources'), join(cache, 'sources', 'src1'), clone]) {
      await chown(folder, 0, 65534);
      await chmod(folder, 0o775);
    }
    const plant = asMember(PLANT, [clone]);
    expect(await ended(plant)).toBe(0);
    const swap = asMember(SWAP, [clone, home]);
    let said = '';
    swap.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    await new Promise<void>((resolve) => swap.stdout!.on('data', () => said.includes('ready') && resolve()));

    const env = { HLDP_CACHE_DIR: cache, HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
    const run = await runCli(['scan', '--repo', join(temp.path, 'repo')], { env, timeoutMs: 110_000 });
    swap.kill('SIGKILL');
    await ended(swap);

    expect(await readFile(join(home, 'precious.txt'), 'utf8')).toBe('do not delete\n');
    expect(await readFile(join(home, 'important', 'a.txt'), 'utf8')).toBe('data\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`the scan cache folder "${cache}" is writable by group (mode 0775)`);
    expect(run.stderr).not.toContain('hldp-cache-');
    expect(((await lstat(cache)).mode & 0o7777).toString(8)).toBe('755');

    // whatever the swap left of the moved tree is not read, and the next start removes it — through the link too, never beyond it
    const next = await runCli(['scan', '--repo', join(temp.path, 'repo')], { env, timeoutMs: 110_000 });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('scan cache folder');
    expect((await readdir(cache)).filter((name) => name.startsWith('.distrusted-'))).toEqual([]);
    expect(await readFile(join(home, 'precious.txt'), 'utf8')).toBe('do not delete\n');
    expect(await readFile(join(home, 'important', 'a.txt'), 'utf8')).toBe('data\n');
  }, 300_000);
});

describe('what an earlier start moved aside and could not remove', () => {
  it('is removed by the next start, links in it removed and never followed', async () => {
    const own = await makeTempDir();
    try {
      const outside = join(own.path, 'outside');
      await writeFiles(outside, { 'keep.txt': 'kept\n', 'deep/keep.txt': 'kept\n' });
      await writeFiles(join(own.path, 'repo'), { 'tools/hello/TOOL.hdlp': HELLO });
      const cache = join(own.path, 'cache');
      // a tree left aside: links to the folder outside at every depth, and as the entry itself
      await mkdir(join(cache, '.distrusted-0123456789abcdef', 'a', 'b', 'c'), { recursive: true, mode: 0o700 });
      for (const at of ['a', 'a/b', 'a/b/c']) await symlink(outside, join(cache, '.distrusted-0123456789abcdef', at, 'link'));
      await symlink(outside, join(cache, '.distrusted-fedcba9876543210'));
      await chmod(cache, 0o700);
      const env = { HLDP_CACHE_DIR: cache, HLDP_DATA_DIR: join(own.path, 'data'), HLDP_WORKSPACE: own.path, HLDP_LOG_LEVEL: 'warn' };
      const run = await runCli(['scan', '--repo', join(own.path, 'repo')], { env, timeoutMs: 110_000 });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('scan cache folder');
      expect((await readdir(cache)).filter((name) => name.startsWith('.distrusted-'))).toEqual([]);
      expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('kept\n');
      expect(await readFile(join(outside, 'deep', 'keep.txt'), 'utf8')).toBe('kept\n');
    } finally {
      await own.cleanup();
    }
  }, 120_000);
});
