import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { offsetAfter, sortedOffsets } from '../../src/scanner/sources/pack-file.js';
import { PackStore } from '../../src/scanner/sources/pack-store.js';
import { blobId, craftDelta, writeCraftedPack } from '../helpers/crafted-pack.js';
import { makeTempDir } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// A pack on disk is whatever its writer put there: read a window at a time, each entry bounded by the next offset
// its index names, any pack and index give each object right or an Error, never another object, another kind of
// failure or a read without end.

let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir();
});
afterAll(() => temp.cleanup());

const BASE = Buffer.from('the base every delta of this pack copies from, '.repeat(4));
const OTHER = Buffer.from('a second whole blob');
const RESULT = Buffer.concat([BASE.subarray(0, 40), Buffer.from('!')]);

/** A blob, a ref-delta on it, and a second blob: the objects every case starts from, by id. */
const OBJECTS = new Map<string, Buffer>([
  [blobId(BASE), BASE],
  [blobId(RESULT), RESULT],
  [blobId(OTHER), OTHER],
]);

async function craftedGitdir(): Promise<{ gitdir: string; pack: string; index: string }> {
  const gitdir = join(temp.path, 'git');
  await rm(gitdir, { recursive: true, force: true });
  await writeCraftedPack(gitdir, [
    { oid: blobId(BASE), kind: 'blob', data: BASE },
    // copy 40 bytes from offset 0, then insert one
    { oid: blobId(RESULT), kind: 'ref-delta', base: blobId(BASE), data: craftDelta(BASE.length, RESULT.length, Buffer.from([0x90, 40, 1, 0x21])) },
    { oid: blobId(OTHER), kind: 'blob', data: OTHER },
  ]);
  const folder = join(gitdir, 'objects', 'pack');
  const names = await readdir(folder);
  return { gitdir, pack: join(folder, names.find((name) => name.endsWith('.pack'))!), index: join(folder, names.find((name) => name.endsWith('.idx'))!) };
}

/** Each object read through a fresh store: right, or an Error. */
async function readsRightOrFail(gitdir: string): Promise<void> {
  const packs = new PackStore(gitdir, 1024, 50);
  try {
    await packs.list();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return;
  }
  const reader = new ObjectReader(gitdir, packs, () => false);
  for (const [oid, content] of OBJECTS) {
    try {
      const size = await reader.size(oid);
      expect(size === undefined || Number.isSafeInteger(size)).toBe(true);
    } catch (error) {
      expect(error).toBeInstanceOf(Error);
    }
    try {
      expect((await reader.read(oid)).content.equals(content)).toBe(true);
    } catch (error) {
      expect(error).toBeInstanceOf(Error);
    }
  }
  packs.release();
}

describe('PackStore over a pack and an index of any bytes', () => {
  it('reads the crafted pack whole and right', async () => {
    const { gitdir } = await craftedGitdir();
    const packs = new PackStore(gitdir);
    await packs.list();
    const reader = new ObjectReader(gitdir, packs, () => false);
    for (const [oid, content] of OBJECTS) expect((await reader.read(oid)).content.equals(content)).toBe(true);
    packs.release();
  });

  it('gives each object right or an Error when the pack is cut short, or bytes of it changed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { maxLength: 6 }), fc.option(fc.nat()), async (changes, cut) => {
        const { gitdir, pack } = await craftedGitdir();
        let bytes = await readFile(pack);
        for (const { at, byte } of changes) bytes[at % bytes.length] = byte;
        if (cut !== null) bytes = bytes.subarray(0, cut % (bytes.length + 1));
        await writeFile(pack, bytes);
        await readsRightOrFail(gitdir);
      }),
      { numRuns: runs(150) },
    );
  });

  it('gives each object right or an Error when the index names any offsets', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.nat({ max: 600 }), fc.nat(), fc.constant(0x80000000), fc.constant(0x80000001)), { minLength: 3, maxLength: 3 }), async (offsets) => {
        const { gitdir, index } = await craftedGitdir();
        const bytes = await readFile(index);
        const count = bytes.readUInt32BE(8 + 255 * 4);
        const table = 8 + 1024 + count * 24;
        offsets.forEach((offset, at) => bytes.writeUInt32BE(offset >>> 0, table + at * 4));
        createHash('sha1').update(bytes.subarray(0, bytes.length - 20)).digest().copy(bytes, bytes.length - 20);
        await writeFile(index, bytes);
        await readsRightOrFail(gitdir);
      }),
      { numRuns: runs(150) },
    );
  });
});

describe('sortedOffsets', () => {
  it('gives sorted offsets or an Error, whatever the index bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 8 + 1024, maxLength: 1400 }), fc.nat({ max: 40 }), (bytes, count) => {
        const index = Buffer.from(bytes);
        // a count the bytes may or may not hold
        index.writeUInt32BE(count, 8 + 255 * 4);
        try {
          const offsets = sortedOffsets(index);
          expect(offsets.length).toBe(count);
          for (let at = 1; at < offsets.length; at++) expect(offsets[at]!).toBeGreaterThanOrEqual(offsets[at - 1]!);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }),
    );
  });

  // a warm start's first few entries are bounded by one pass over the index each (offsetAfter), the rest by the
  // sorted offsets: both must give every entry the same end, and refuse the same indexes
  it('bounds an entry where a pass over the index does, whatever the index bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 8 + 1024, maxLength: 1400 }), fc.nat({ max: 40 }), fc.array(fc.nat(), { maxLength: 8 }), (bytes, count, picks) => {
        const index = Buffer.from(bytes);
        index.writeUInt32BE(count, 8 + 255 * 4);
        let offsets: Float64Array;
        try {
          offsets = sortedOffsets(index);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
          expect(() => offsetAfter(index, 0)).toThrow(Error);
          return;
        }
        // the index's own offsets (where an entry starts), those ± 1, and any other
        const asked = [...[...offsets].flatMap((offset) => [offset - 1, offset, offset + 1]), ...picks];
        for (const offset of asked) expect(offsetAfter(index, offset)).toBe(offsets.find((next) => next > offset) ?? Number.POSITIVE_INFINITY);
      }),
    );
  });
});
