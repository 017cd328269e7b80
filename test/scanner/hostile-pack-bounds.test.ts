import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { applyDelta } from '../../src/scanner/sources/git-delta.js';
import { indexPack, MAX_APPENDED_BYTES, MAX_PACK_OBJECTS } from '../../src/scanner/sources/index-pack.js';
import { Entry } from '../../src/scanner/sources/pack-entries.js';
import { MAX_OBJECT_BYTES, type GitObject } from '../../src/scanner/sources/pack-store.js';
import { writeIndex } from '../../src/scanner/sources/write-index.js';
import { advertisement, craftDelta, emptyCommit, objectId, PackWriter } from '../helpers/crafted-pack.js';
import type { CliRun } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';
import { sideBandAnswer, uploadPackHandler } from '../helpers/upload-pack-server.js';

// A git server's pack is hostile input that our own indexer reads (review G): each bound here was one a few kilobytes
// of pack got past. Packs are crafted as a hostile server writes them and served by a local HTTP server implementing
// upload-pack, or handed to `indexPack` directly for a limit of its own.

const MIB = 1024 * 1024;

const folder = testFolder();

const noOutside = (oid: string): Promise<GitObject> => Promise.reject(new Error(`Could not find ${oid}`));

/** `hldp scan` of a local HTTP server implementing upload-pack that advertises `commit` and answers with `pack`. */
async function scan(pack: Buffer, commit: string): Promise<CliRun> {
  const origin = await folder.listen(uploadPackHandler(advertisement(commit), sideBandAnswer(pack)));
  return folder.scan(`${origin}/tools.git`, { timeoutMs: 50_000 });
}

/** A blob whose size varint runs on for `continuations` bytes of nothing (read as NaN past ~146), then `inflated` bytes of zeros. */
function longSizeBlob(pack: PackWriter, continuations: number, inflated: number): void {
  pack.raw(Buffer.concat([Buffer.from([0xb0, ...new Array<number>(continuations).fill(0x80), 0x00]), deflateSync(Buffer.alloc(inflated))]));
}

describe('a pack entry whose size varint runs past 64 bits (F6: it read as NaN, and NaN passed every size check)', () => {
  it('indexPack refuses it from its header, before inflating anything: the 64 MiB of zeros behind it are never made', async () => {
    const pack = new PackWriter();
    longSizeBlob(pack, 160, 64 * MIB);
    // main inflated all of it (zlib's output cap was NaN: none) and only then failed "where its header says NaN"
    await expect(indexPack(pack.finish(), noOutside)).rejects.toThrow('corrupt pack: the size of the object at 12 runs past 67 bits');
  });

  it('refuses a size of 9 continuation bytes past a safe integer, and reads one of 9 that is safe', async () => {
    const unsafe = new PackWriter();
    unsafe.raw(Buffer.concat([Buffer.from([0xbf, ...new Array<number>(8).fill(0xff), 0x7f]), deflateSync(Buffer.alloc(1))]));
    await expect(indexPack(unsafe.finish(), noOutside)).rejects.toThrow(/corrupt pack: the object at 12 states a size of \d+ bytes, past any a pack may hold/);
    // a size padded with zero continuations (git writes none, but reads them) is still its size
    const padded = new PackWriter();
    padded.raw(Buffer.concat([Buffer.from([0xb5, ...new Array<number>(8).fill(0x80), 0x00]), deflateSync(Buffer.from('hello'))]));
    const indexed = await indexPack(padded.finish(), noOutside);
    expect(indexed.objects).toBe(1);
  });

  it('refuses a delta whose result size runs past 64 bits, naming it (main: a TypeError from Buffer.allocUnsafe(NaN))', () => {
    const base = Buffer.from('hello');
    const nanSize = Buffer.concat([Buffer.from([5]), Buffer.from(new Array<number>(160).fill(0x80)), Buffer.from([0x01, 0x90, 5])]);
    expect(() => applyDelta(nanSize, base)).toThrow('corrupt git delta: a size runs past 64 bits');
  });

  it('hldp scan of a server sending it exits 2 with the refusal, not after gigabytes', async () => {
    const pack = new PackWriter();
    const commit = emptyCommit(pack);
    longSizeBlob(pack, 160, 16 * MIB);
    const run = await scan(pack.finish(), commit);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/corrupt pack: the size of the object at \d+ runs past 67 bits/);
  }, 60_000);
});

/**
 * Two whole blobs of `fill` bytes first (their data, kept as read, fills a hold of twice that; first in the pack, they
 * are resolved last), then a 1-byte blob and a chain of `depth` ofs-deltas each copying its base's byte: every base is
 * let go as soon as it is held, so each delta was made again from the root.
 */
function remakeChain(pack: PackWriter, depth: number, fill: number): void {
  pack.whole('blob', Buffer.alloc(fill));
  pack.whole('blob', Buffer.alloc(fill, 1));
  const step = craftDelta(1, 1, Buffer.from([0x90, 1]));
  let at = pack.whole('blob', Buffer.from('A'));
  for (let index = 0; index < depth; index++) at = pack.ofs(at, step);
}

describe('a delta chain made again from its root at every step (F1: the make limit counted bytes, not work)', () => {
  it('indexPack refuses it once the re-making reaches the make limit, each re-make counted at least 4 KiB', async () => {
    const pack = new PackWriter();
    remakeChain(pack, 2000, 1024);
    // ~2 million re-makes of ~5 counted bytes each: main indexed it, quadratically (7.7 s of CPU in the review)
    await expect(indexPack(pack.finish(), noOutside, MAX_OBJECT_BYTES, 2048)).rejects.toThrow(/its objects would make more than the 1073741824 bytes a pack of \d+ bytes may make here/);
  }, 60_000);

  it('indexes the same chain when its bases fit the hold: each delta made once', async () => {
    const pack = new PackWriter();
    remakeChain(pack, 2000, 1024);
    expect((await indexPack(pack.finish(), noOutside)).objects).toBe(2003);
  });

  it('hldp scan of a server sending it behind two 64 MiB blobs exits 2 naming the make limit (main: 207 s of CPU, then exit 0)', async () => {
    const pack = new PackWriter();
    remakeChain(pack, 9999, 64 * MIB);
    const commit = emptyCommit(pack);
    const run = await scan(pack.finish(), commit);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/its objects would make more than the 1073741824 bytes a pack of \d+ bytes may make here/);
  }, 60_000);
});

/** A pack of `count` empty blobs: 9 bytes each (a 1-byte header and the 8-byte zlib stream of nothing). */
function emptyBlobs(count: number, commit?: (pack: PackWriter) => string): { pack: Buffer; commit: string } {
  const pack = new PackWriter();
  const head = commit?.(pack) ?? '0'.repeat(40);
  const entry = Buffer.concat([Buffer.from([0x30]), deflateSync(Buffer.alloc(0))]);
  for (let index = 0; index < count; index++) pack.raw(entry);
  return { pack: pack.finish(), commit: head };
}

describe('a pack of very many tiny objects (F2: nothing bounded their number; 9 million empty blobs aborted the process)', () => {
  it(`indexPack refuses a pack of more than ${MAX_PACK_OBJECTS} objects from its header, before reading one`, async () => {
    // main indexed it: ~574 bytes of heap an object (9 million: a V8 heap OOM)
    await expect(indexPack(emptyBlobs(MAX_PACK_OBJECTS + 1).pack, noOutside)).rejects.toThrow(`fetched pack: ${MAX_PACK_OBJECTS + 1} objects, over the ${MAX_PACK_OBJECTS} a pack may bring here`);
  }, 60_000);

  it('indexes many empty blobs within the limit (their empty data not kept: one object, 2 entries)', async () => {
    const indexed = await indexPack(emptyBlobs(2).pack, noOutside);
    expect(indexed.objects).toBe(2);
    expect([...indexed.received.values()].map((object) => object.content.length)).toEqual([0]);
  });

  it('hldp scan of a server sending it exits 2 naming the limit', async () => {
    const { pack, commit } = emptyBlobs(MAX_PACK_OBJECTS + 1, emptyCommit);
    const run = await scan(pack, commit);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`objects, over the ${MAX_PACK_OBJECTS} a pack may bring here`);
  }, 60_000);
});

describe('indexing millions of tiny objects (F10: writeIndex and the resolver setup ran without a turn: 48 s at 2 million)', () => {
  it('writeIndex lets the event loop turn while it sorts and writes 300,000 ids, and writes them in order', async () => {
    const entries: Entry[] = [];
    for (let index = 0; index < 300_000; index++) entries.push(Entry.whole(12 + index, 13 + index, 0, 'blob', 12, 0, randomBytes(20).toString('hex')));
    const received = Buffer.concat([Buffer.from('PACK'), Buffer.alloc(8), randomBytes(20)]);
    let ticks = 0;
    let done = false;
    const tick = (): void => {
      ticks++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    // main: one synchronous piece (the sort alone was 7.6 s of a million objects' 16.6 s stall)
    const indexed = await writeIndex(received, entries, [], new Map());
    done = true;
    expect(ticks).toBeGreaterThan(0);
    const names = indexed.index.subarray(8 + 1024, 8 + 1024 + 20 * 300_000);
    let outOfOrder = 0;
    for (let at = 20; at < names.length; at += 20) if (Buffer.compare(names.subarray(at - 20, at), names.subarray(at, at + 20)) >= 0) outOfOrder++;
    expect(outOfOrder).toBe(0);
  }, 60_000);
});

describe('a thin pack whose few bytes of ref-deltas are on large objects we hold (F4: their bases were held and appended without bound)', () => {
  it('indexPack refuses one whose outside bases pass MAX_APPENDED_BYTES, naming the limit, and indexes one within it', async () => {
    const bases = [0, 1, 2].map((fill) => Buffer.alloc(48 * MIB, fill));
    const ids = bases.map((base) => objectId('blob', base));
    const readOutside = (oid: string): Promise<GitObject> => Promise.resolve({ type: 'blob', content: bases[ids.indexOf(oid)]! });
    const thin = (count: number): Buffer => {
      const pack = new PackWriter();
      for (let index = 0; index < count; index++) pack.ref(ids[index]!, craftDelta(48 * MIB, 1, Buffer.from([1, index])));
      return pack.finish();
    };
    // main: three deltas of a few bytes each appended 144 MiB to the pack (16 of 60 MiB: 3 GB RSS, 960 MB on disk a fetch)
    await expect(indexPack(thin(3), readOutside)).rejects.toThrow(`fetched pack: its deltas are on ${3 * 48 * MIB} bytes of objects from outside it, over the ${MAX_APPENDED_BYTES} a fetch may append here`);
    const indexed = await indexPack(thin(2), readOutside);
    expect(indexed.appended).toBe(2);
  }, 60_000);
});
