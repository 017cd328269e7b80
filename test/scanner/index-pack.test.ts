import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPack, KEPT_OVERHEAD_BYTES } from '../../src/scanner/sources/index-pack.js';
import { portableCrc32 } from '../../src/scanner/sources/pack-hashes.js';
import type { GitObject, ObjectType } from '../../src/scanner/sources/pack-store.js';
import { writeIndexedPack } from '../../src/scanner/sources/write-index.js';
import { blobId, craftDelta, writeCraftedPack } from '../helpers/crafted-pack.js';
import { commitFiles, git, initRepository, makeTempDir } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';

// Our own `git index-pack --fix-thin`: a fetched pack's index must be the one git writes, a thin pack must be made
// whole so that git reads it, and a hostile pack must be refused or indexed exactly as git indexes it.

const run = promisify(execFile);

/** `git pack-objects` of the revisions given (`--thin` for a fetch's pack against what `^commit` holds). */
async function packObjects(repo: string, revisions: string[], thin = false): Promise<Buffer> {
  const child = execFile('git', ['pack-objects', '--revs', '--stdout', '--delta-base-offset', ...(thin ? ['--thin'] : [])], { cwd: repo, encoding: 'buffer', maxBuffer: 1 << 26 });
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git pack-objects exited ${code}`)))));
  child.stdin!.end(`${revisions.join('\n')}\n`);
  await done;
  return Buffer.concat(chunks);
}

/** The index `git index-pack` writes for a pack. */
async function gitIndex(folder: string, pack: Buffer): Promise<Buffer> {
  const path = join(folder, `check-${randomBytes(6).toString('hex')}.pack`);
  await writeFile(path, pack);
  await run('git', ['index-pack', path]);
  return readFile(path.replace(/\.pack$/, '.idx'));
}

/** Writes a pack beside its index as git writes it, for `git verify-pack`; its file name under `temp`. */
async function writtenPack(pack: Buffer): Promise<string> {
  const name = `verify-${randomBytes(6).toString('hex')}.pack`;
  await writeFile(join(temp.path, name), pack);
  await run('git', ['index-pack', join(temp.path, name)]);
  return name.replace(/\.pack$/, '.idx');
}

/** Reads an object from the repository as git prints it: a thin pack's base. */
async function readWithGit(repo: string, oid: string): Promise<GitObject> {
  const type = (await git(repo, 'cat-file', '-t', oid)) as ObjectType;
  const { stdout } = await run('git', ['cat-file', type, oid], { cwd: repo, encoding: 'buffer', maxBuffer: 1 << 26 });
  return { type, content: stdout };
}

const noOutside = async (oid: string): Promise<GitObject> => {
  throw new Error(`Could not find ${oid}`);
};

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let first: string;
let second: string;

beforeAll(async () => {
  temp = await makeTempDir('hldp-index-pack-');
  repo = await initRepository(join(temp.path, 'repo'));
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) files[`tools/tool-${i}/TOOL.hdlp`] = `name: tool-${i}\nwhy: ${'padding so git finds deltas '.repeat(20)}${i}\n`;
  first = await commitFiles(repo, files);
  second = await commitFiles(repo, { 'tools/tool-3/TOOL.hdlp': `name: tool-3\nwhy: ${'padding so git finds deltas '.repeat(20)}changed\n`, 'tools/new/TOOL.hdlp': 'name: new\n' });
});
afterAll(async () => temp.cleanup());

describe('indexPack', () => {
  it('writes the index git index-pack writes for the same pack, deltas and all', async () => {
    const pack = await packObjects(repo, [second]);
    const indexed = await indexPack(pack, noOutside);
    expect(indexed.appended).toBe(0);
    expect(indexed.pack.equals(pack)).toBe(true);
    expect(indexed.index.equals(await gitIndex(temp.path, pack))).toBe(true);
    expect(indexed.objects).toBe(Number((await git(repo, 'rev-list', '--objects', second)).split('\n').length));
  });

  it('keeps each small object in memory of its own size, neither a chunk nor a pool slab bigger than itself', async () => {
    // zlib's default output chunk is 16 KB: an object inflated into one kept all of it alive (a 100,000-tool clone's
    // 200,000 small objects held ~3 GB); a delta's result made in Node's shared 8 KB pool kept the whole slab alive
    // (~14,000 slabs, ~114 MB, held by a cold scan of 100,000 tools)
    const indexed = await indexPack(await packObjects(repo, [second]), noOutside);
    const small = [...indexed.received.values()].filter((object) => object.content.length < 1024);
    expect(small.length).toBeGreaterThan(10);
    for (const object of small) expect(object.content.buffer.byteLength).toBe(object.content.length);
    // the pack's blobs are deltas on each other: some of those kept were made by applying one
    const resolved = [...indexed.received.values()].filter((object) => object.type === 'blob' && object.content.length > zlib.constants.Z_MIN_CHUNK);
    expect(resolved.length).toBeGreaterThan(10);
  });

  it('hands on no more objects than it may keep, each counted with what holding it costs beside its content', async () => {
    const pack = await packObjects(repo, [second]);
    expect((await indexPack(pack, noOutside, undefined, undefined, 0)).received.size).toBe(0);
    const all = await indexPack(pack, noOutside);
    const budget = 20 * KEPT_OVERHEAD_BYTES;
    const some = await indexPack(pack, noOutside, undefined, undefined, budget);
    const cost = [...some.received.values()].reduce((sum, object) => sum + object.content.length + KEPT_OVERHEAD_BYTES, 0);
    expect(some.received.size).toBeGreaterThan(0);
    expect(cost).toBeLessThanOrEqual(budget);
    expect(all.received.size).toBeGreaterThan(some.received.size);
    // what is kept is what the whole run keeps, and the index is the same
    for (const [oid, object] of some.received) expect(all.received.get(oid)?.content.equals(object.content)).toBe(true);
    expect(some.index.equals(all.index)).toBe(true);
  });

  it('indexes a pack the same whatever it may hold at once: what it lets go it inflates or resolves again', async () => {
    // a hostile pack can make gigabytes of objects from kilobytes (test/scanner/hostile-server.test.ts): past its
    // bound the indexer lets bases go and makes them again, which must never change what it writes or hands on.
    // A file changed a line at a time over 15 commits: git packs its versions as one chain of deltas 13 long
    const history = await initRepository(join(temp.path, `history-${randomBytes(4).toString('hex')}`));
    const lines = Array.from({ length: 40 }, (_, line) => `line ${line} of a text that git chains its deltas on, padded out`);
    const commits: string[] = [];
    for (let version = 0; version < 15; version++) {
      lines[version] = `line ${version} changed in version ${version}`;
      commits.push(await commitFiles(history, { 'tools/a/TOOL.hdlp': `${lines.join('\n')}\n` }));
    }
    const pack = await packObjects(history, [commits[14]!]);
    const thin = await packObjects(history, [commits[14]!, `^${commits[6]}`], true);
    const chains = (await run('git', ['verify-pack', '-v', join(temp.path, await writtenPack(pack))])).stdout;
    expect(chains).toMatch(/chain length = 1[0-9]: /);
    const contents = (indexed: Awaited<ReturnType<typeof indexPack>>) => new Map([...indexed.received].map(([oid, object]) => [oid, `${object.type} ${object.content.toString('hex')}`]));
    const whole = await indexPack(pack, noOutside);
    const wholeThin = await indexPack(thin, (oid) => readWithGit(history, oid));
    expect(wholeThin.appended).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(fc.nat(40_000), async (holdBytes) => {
        const bounded = await indexPack(pack, noOutside, undefined, holdBytes);
        expect(bounded.index.equals(whole.index)).toBe(true);
        expect(contents(bounded)).toEqual(contents(whole));
        const boundedThin = await indexPack(thin, (oid) => readWithGit(history, oid), undefined, holdBytes);
        expect(boundedThin.pack.equals(wholeThin.pack)).toBe(true);
        expect(boundedThin.index.equals(wholeThin.index)).toBe(true);
        expect(contents(boundedThin)).toEqual(contents(wholeThin));
      }),
      { numRuns: runs(25) },
    );
  }, propertyTimeout(60_000));

  describe('when the pack is thin', () => {
    it('appends the bases it lacks so that git reads it whole, and indexes it as git does', async () => {
      const thin = await packObjects(repo, [second, `^${first}`], true);
      await expect(indexPack(thin, noOutside)).rejects.toThrow(/Could not find/);
      const indexed = await indexPack(thin, (oid) => readWithGit(repo, oid));
      expect(indexed.appended).toBeGreaterThan(0);
      // git refuses a thin pack without --fix-thin: this one it indexes as it stands, to the same bytes
      expect(indexed.index.equals(await gitIndex(temp.path, indexed.pack))).toBe(true);
      const gitdir = join(temp.path, 'written');
      await initRepository(gitdir, { bare: true });
      await writeIndexedPack(gitdir, indexed);
      await run('git', ['verify-pack', join(gitdir, 'objects', 'pack', `${indexed.name}.idx`)]);
      // every object the thin pack brought is handed on resolved, as git reads it
      for (const [oid, object] of indexed.received) expect(object).toEqual(await readWithGit(repo, oid));
    });
  });

  describe('when a thin pack chains ref-deltas (a server without ofs-delta)', () => {
    it('resolves an in-pack base through the outside one and never asks outside for it', async () => {
      // A is a ref-delta on P, which the pack lacks (we hold it); B is a ref-delta on A, inside the pack
      const p = Buffer.from('the base the receiver holds\n');
      const a = Buffer.from('A, made from P\n');
      const b = Buffer.from('B, made from A\n');
      const gitdir = join(temp.path, `chained-${randomBytes(4).toString('hex')}`);
      await writeCraftedPack(gitdir, [
        { oid: blobId(a), kind: 'ref-delta', base: blobId(p), data: craftDelta(p.length, a.length, Buffer.concat([Buffer.from([a.length]), a])) },
        { oid: blobId(b), kind: 'ref-delta', base: blobId(a), data: craftDelta(a.length, b.length, Buffer.concat([Buffer.from([b.length]), b])) },
      ]);
      const [name] = (await readdir(join(gitdir, 'objects', 'pack'))).filter((file) => file.endsWith('.pack'));
      const asked: string[] = [];
      const indexed = await indexPack(await readFile(join(gitdir, 'objects', 'pack', name!)), async (oid) => {
        asked.push(oid);
        if (oid === blobId(p)) return { type: 'blob', content: p };
        throw new Error(`Could not find ${oid}`);
      });
      expect(asked).toEqual([blobId(p)]);
      expect(indexed.received.get(blobId(b))?.content.equals(b)).toBe(true);
      expect(indexed.appended).toBe(1);
    });
  });

  describe('when the pack is damaged', () => {
    it('refuses a pack cut short or with a wrong checksum', async () => {
      const pack = await packObjects(repo, [second]);
      await expect(indexPack(pack.subarray(0, pack.length - 7), noOutside)).rejects.toThrow(/checksum/);
      await expect(indexPack(pack.subarray(0, 20), noOutside)).rejects.toThrow(/not a git pack/);
    });

    it('refuses a delta whose result states more than an object read may hold, before making it', async () => {
      // 1,024 copies of a 1 MiB blob of zeros: ~2 KB of instructions stating a 1 GiB object, then a small one on it
      const zeros = Buffer.alloc(1024 * 1024);
      const copies = Buffer.alloc(2 * 1024);
      for (let at = 0; at < copies.length; at += 2) copies.set([0x80 | 0x40, 0x10], at);
      const huge = 'b0'.repeat(20);
      const gitdir = join(temp.path, 'bomb');
      await writeCraftedPack(gitdir, [
        { oid: blobId(zeros), kind: 'blob', data: zeros },
        { oid: huge, kind: 'ref-delta', base: blobId(zeros), data: craftDelta(zeros.length, 1024 * zeros.length, copies) },
        { oid: 'c0'.repeat(20), kind: 'ref-delta', base: huge, data: craftDelta(1024 * zeros.length, 3, Buffer.from([3, 0x61, 0x62, 0x63])) },
      ]);
      const [packFile] = (await readdir(join(gitdir, 'objects', 'pack'))).filter((name) => name.endsWith('.pack'));
      const bomb = await readFile(join(gitdir, 'objects', 'pack', packFile!));
      await expect(indexPack(bomb, noOutside)).rejects.toThrow(/over the \d+ bytes an object read may hold/);
      // a whole object over the limit is hashed as it streams (a large file beside tools/), but no delta may be built on it
      await expect(indexPack(bomb, noOutside, 512 * 1024)).rejects.toThrow(/a delta at \d+ on an object over the 524288 bytes a read may hold/);
    });

    it('refuses or indexes exactly as git does whatever bytes it is given, its checksum made right', async () => {
      const pack = await packObjects(repo, [second]);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.record({ at: fc.nat(), byte: fc.nat(255) }), { minLength: 1, maxLength: 4 }), fc.option(fc.nat()), async (flips, cut) => {
          const body = Buffer.from(pack.subarray(0, cut === null ? pack.length - 20 : 12 + (cut % (pack.length - 32))));
          for (const { at, byte } of flips) body[at % body.length] = byte;
          const hostile = Buffer.concat([body, createHash('sha1').update(body).digest()]);
          let indexed: Awaited<ReturnType<typeof indexPack>> | undefined;
          try {
            indexed = await indexPack(hostile, noOutside);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            return;
          }
          expect(indexed.index.equals(await gitIndex(temp.path, hostile))).toBe(true);
        }),
        { numRuns: runs(60) },
      );
    }, propertyTimeout(60_000));
  });
});

describe('portableCrc32', () => {
  it('computes what zlib computes', () => {
    expect(portableCrc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
    if (!native) return;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(portableCrc32(bytes)).toBe(native(bytes));
      }),
    );
  });
});
