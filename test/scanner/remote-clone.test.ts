import { createHash } from 'node:crypto';
import { copyFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { isBranchName } from '../../src/scanner/sources/branch-name.js';
import { packOfResponse } from '../../src/scanner/sources/upload-pack.js';
import { packetLine, FLUSH } from '../../src/scanner/sources/pkt-line.js';
import { commitFiles, git, makeToolYaml } from '../helpers/git.js';
import { startGitHttpFront } from '../helpers/git-http-front.js';
import { testFolder } from '../helpers/test-folder.js';
import { sideBandAnswer, uploadPackHandler } from '../helpers/upload-pack-server.js';

// A remote's first scan clones it ourselves (isomorphic-git's clone indexed the pack in JavaScript: ~700 MB and most of
// a cold scan's CPU at 100,000 tools): one GET of the refs, one POST asking for the branch's commit alone (`deepen 1`),
// the pack indexed with Node's zlib, written as a git directory git itself reads and later fetches extend.

const folder = testFolder();

async function gitdirOf(cacheDir: string): Promise<string> {
  for (const entry of await readdir(cacheDir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === 'shallow') return entry.parentPath;
  }
  throw new Error(`no clone under ${cacheDir}`);
}

describe('the first scan of a remote over smart HTTP (git http-backend) clones it ourselves', () => {
  it('holds the branch commit alone, in one pack git verifies, with the refs and shallow boundary git and later fetches read', async () => {
    const { url, work, push } = await folder.serve();
    await commitFiles(work, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'README.md': 'old\n' });
    const head = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta'), 'README.md': 'new\n' });
    const cacheDir = folder.cacheDir;
    const index = await scanOnce(url, { cacheDir });
    expect(index.commit).toBe(head);
    expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
    const gitdir = await gitdirOf(cacheDir);
    expect(await readFile(join(gitdir, 'shallow'), 'latin1')).toBe(`${head}\n`);
    expect((await readdir(join(gitdir, 'objects', 'pack'))).filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    // git reads it as a shallow clone of one commit: the parent's objects never came
    expect(await git(gitdir, '--git-dir', gitdir, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(await git(gitdir, '--git-dir', gitdir, 'rev-parse', 'refs/remotes/origin/main', 'HEAD')).toBe(`${head}\n${head}`);
    await expect(git(gitdir, '--git-dir', gitdir, 'cat-file', '-e', 'HEAD~1')).rejects.toThrow();
    await git(gitdir, '--git-dir', gitdir, 'fsck', '--no-dangling');
    expect(await git(gitdir, '--git-dir', gitdir, 'config', 'remote.origin.url')).toBe(url);
  });

  it('clones the branch asked for (its name with a slash), and a later push is fetched onto the clone', async () => {
    const { url, work, push } = await folder.serve();
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    await git(work, 'checkout', '-q', '-b', 'release/staging');
    await commitFiles(work, { 'tools/staged/TOOL.hdlp': makeToolYaml('staged') });
    await git(work, 'push', '-q', 'origin', 'release/staging');
    const scanner = new Scanner({ repo: url, ref: 'release/staging', cacheDir: folder.cacheDir });
    expect((await scanner.scan()).tools.map((tool) => tool.name)).toEqual(['alpha', 'staged']);
    const next = await commitFiles(work, { 'tools/later/TOOL.hdlp': makeToolYaml('later') });
    await git(work, 'push', '-q', 'origin', 'release/staging');
    const fetched = await scanner.scan();
    expect(fetched.commit).toBe(next);
    expect(fetched.tools.map((tool) => tool.name)).toEqual(['alpha', 'later', 'staged']);
    await scanner.flush();
  });

  it('clones and fetches a repository holding a file larger than a read may hold beside tools/ (hashed as it streams, never held)', async () => {
    const { url, push } = await folder.serve();
    // 70 MiB of zeros: git stores it whole (it deltifies against nothing), ~70 KB compressed
    const big = Buffer.alloc(70 * 1024 * 1024);
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'assets/big.bin': big });
    const cacheDir = folder.cacheDir;
    const scanner = new Scanner({ repo: url, cacheDir });
    expect((await scanner.scan()).tools.map((tool) => tool.name)).toEqual(['alpha']);
    await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta'), 'assets/big2.bin': Buffer.concat([big, Buffer.from('x')]) });
    expect((await scanner.scan()).tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
    await scanner.flush();
    const gitdir = await gitdirOf(cacheDir);
    await git(gitdir, '--git-dir', gitdir, 'fsck', '--no-dangling');
    // two clones' worth of 70 MiB hashed: past a minute at load 26 on 2 cores, which is not what it tests
  }, 240_000);

  it('says plainly that a branch does not exist', async () => {
    const { url, push } = await folder.serve();
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    await expect(scanOnce(url, { ref: 'nope', cacheDir: folder.cacheDir })).rejects.toMatchObject({ code: 'REF_NOT_FOUND', message: expect.stringContaining("branch 'nope' does not exist") });
  });
});

describe('a fetch from a server that advertises a commit its pack lacks (a local HTTP server in front of git http-backend)', () => {
  it('fails that scan plainly, and the next honest answer is fetched: refs never name a commit that did not come', async () => {
    const { url: real, push } = await folder.serve();
    const head = await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const fake = 'c'.repeat(40);
    let lying = false;
    const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0]);
    const emptyPack = Buffer.concat([packetLine('NAK\n'), packetLine(Buffer.concat([Buffer.from([1]), header, createHash('sha1').update(header).digest()])), FLUSH]);
    const front = await startGitHttpFront(real, {
      intercept: ({ method }) => (lying && method === 'POST' ? { status: 200, contentType: 'application/x-git-upload-pack-result', body: emptyPack } : undefined),
      // the lie: the branch advertised at a commit that does not exist (same length, so the pkt-line stays valid)
      rewrite: (answer) => (lying ? { ...answer, body: Buffer.from(answer.body.toString('latin1').replace(`${head} refs/heads/main`, `${fake} refs/heads/main`), 'latin1') } : answer),
    });
    const url = folder.closeAfter(front).url;
    const scanner = new Scanner({ repo: url, cacheDir: folder.cacheDir });
    expect((await scanner.scan()).commit).toBe(head);
    lying = true;
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(scanner.scan()).rejects.toMatchObject({ code: 'SOURCE_UNREACHABLE', message: expect.stringContaining(`does not hold the commit it advertised for 'main' (${fake})`) });
    }
    lying = false;
    const next = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    const honest = await scanner.scan();
    expect(honest.commit).toBe(next);
    expect(honest.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
    await scanner.flush();
  });
});

describe('starting a clone over after 64 fetches, from a server whose fetch fails (a local HTTP server in front of git http-backend)', () => {
  it('keeps the old clone until the new one has come, and starts over once the server answers', async () => {
    const { url: real, push } = await folder.serve();
    const first = await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    let failing = false;
    const front = await startGitHttpFront(real, {
      intercept: ({ method }) => (failing && method === 'POST' ? { status: 500, contentType: '', body: Buffer.from('upload-pack failed') } : undefined),
    });
    const url = folder.closeAfter(front).url;
    const cacheDir = folder.cacheDir;
    const scanner = new Scanner({ repo: url, cacheDir });
    expect((await scanner.scan()).commit).toBe(first);
    // as if 64 fetches had each left a pack (copies of the clone's: the same objects under other names)
    const gitdir = await gitdirOf(cacheDir);
    const packDir = join(gitdir, 'objects', 'pack');
    const [pack] = (await readdir(packDir)).filter((name) => name.endsWith('.pack'));
    for (let copy = 0; copy < 64; copy++) {
      const name = `pack-${copy.toString(16).padStart(40, '0')}`;
      await copyFile(join(packDir, pack!), join(packDir, `${name}.pack`));
      await copyFile(join(packDir, pack!.replace(/\.pack$/, '.idx')), join(packDir, `${name}.idx`));
    }
    const second = await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    failing = true;
    await expect(scanner.scan()).rejects.toMatchObject({ code: 'SOURCE_UNREACHABLE', message: expect.stringContaining('HTTP 500') });
    // the old clone is all there, and reads as before
    expect(await git(gitdir, '--git-dir', gitdir, 'rev-parse', 'HEAD')).toBe(first);
    expect((await readdir(packDir)).filter((name) => name.endsWith('.pack'))).toHaveLength(65);
    failing = false;
    const fresh = await scanner.scan();
    expect(fresh.commit).toBe(second);
    expect(fresh.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
    expect((await readdir(packDir)).filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    await scanner.flush();
  });
});

describe('a server whose advertisement carries media type parameters (a local HTTP server in front of git http-backend)', () => {
  it('is read as git reads it: `application/x-git-upload-pack-advertisement; charset=utf-8` is the advertisement', async () => {
    const { url: real, push } = await folder.serve();
    const head = await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const front = await startGitHttpFront(real, { rewrite: (answer) => ({ ...answer, contentType: `${answer.contentType}; charset=utf-8` }) });
    const url = folder.closeAfter(front).url;
    expect((await scanOnce(url, { cacheDir: folder.cacheDir })).commit).toBe(head);
  });
});

describe('a clone from a server whose HEAD names a branch git would refuse (a local HTTP server implementing the advertisement)', () => {
  /** A local HTTP server that advertises `branch` at a made-up commit and answers the fetch with an empty, well-formed pack. */
  async function serveAdvertisement(branch: string): Promise<string> {
    const oid = 'a'.repeat(40);
    const advertisement = Buffer.concat([
      packetLine('# service=git-upload-pack\n'),
      FLUSH,
      packetLine(`${oid} HEAD\0side-band-64k ofs-delta shallow symref=HEAD:refs/heads/${branch} agent=git/2\n`),
      packetLine(`${oid} refs/heads/${branch}\n`),
      FLUSH,
    ]);
    const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0]);
    const pack = Buffer.concat([header, createHash('sha1').update(header).digest()]);
    return `${await folder.listen(uploadPackHandler(advertisement, sideBandAnswer(pack)))}/tools.git`;
  }

  it.each(['../../../../escaped', 'main\n[core]\n\tfsmonitor = evil', '.hidden', 'a..b'])('refuses %j before writing anything', async (branch) => {
    // only the name stands between such a server and our files: the pack it sends is well formed
    const url = await serveAdvertisement(branch);
    const cacheDir = folder.cacheDir;
    await expect(scanOnce(url, { cacheDir })).rejects.toMatchObject({ code: branch.includes('\n') ? 'SOURCE_UNREACHABLE' : 'REF_NOT_FOUND' });
    // nothing of a clone was made, inside the cache or beside it
    const written = await readdir(folder.path, { recursive: true });
    expect(written.filter((path) => /escaped|HEAD$|config$/.test(String(path)))).toEqual([]);
  });

  it('refuses a pack without the commit the server advertised, and leaves no clone to be stuck on', async () => {
    const url = await serveAdvertisement('main');
    const cacheDir = folder.cacheDir;
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(scanOnce(url, { cacheDir })).rejects.toMatchObject({ code: 'SOURCE_UNREACHABLE', message: expect.stringContaining(`does not hold the commit it advertised for 'main' (${'a'.repeat(40)})`) });
      expect((await readdir(cacheDir, { recursive: true })).filter((path) => /HEAD$/.test(String(path)))).toEqual([]);
    }
  });

  it('accepts the branch names git accepts and no others', () => {
    for (const name of ['main', 'release/1.2', 'feature/x-y_z', 'v1.0+build', 'user@host']) expect(isBranchName(name), name).toBe(true);
    for (const name of ['', '-x', '/a', 'a/', 'a.', 'a..b', '.a', 'a/.b', 'a.lock', 'a//b', 'a b', 'a\nb', 'a@{1}', '@', 'a~1', 'a^', 'a:b', 'a\\b', 'HEAD']) expect(isBranchName(name), JSON.stringify(name)).toBe(false);
  });
});

describe('packOfResponse after a deepen request', () => {
  it('skips the shallow boundary and its flush, then reads the pack from the side band', async () => {
    const pack = Buffer.from('PACK0123456789');
    const body = Buffer.concat([packetLine(`shallow ${'b'.repeat(40)}\n`), FLUSH, packetLine('NAK\n'), packetLine(Buffer.concat([Buffer.from([1]), pack])), FLUSH]);
    expect((await packOfResponse(body, true)).equals(pack)).toBe(true);
  });
});
