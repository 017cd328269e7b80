import { join } from 'node:path';
import { constants, deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { inflateEntry, SMALL_INFLATE_BYTES } from '../../src/scanner/sources/pack-inflate.js';
import { PackStore, type PackEntry } from '../../src/scanner/sources/pack-store.js';
import { blobId, writeCraftedPack } from '../helpers/crafted-pack.js';
import { makeTempDir } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// A small pack entry is inflated in JavaScript (fflate), a large one by Node's zlib (issue #18: an engine per ~1 KB
// object cost more than the inflating). Every object must come out byte for byte as zlib makes it, and a stream zlib
// refuses is refused with zlib's own message, or, where the JavaScript inflater is more lenient (it checks no Adler-32,
// nor a stored block's length complement), gives exactly the stated size, and the object's id check refuses it unless
// it is the object itself.

/** What the reader did before: zlib alone, its output capped at the stated size. */
function zlibReference(data: Buffer, size: number): Buffer {
  const inflated = inflateSync(data, { maxOutputLength: Math.max(size, 1), chunkSize: Math.max(size + 1, constants.Z_MIN_CHUNK) });
  if (inflated.length !== size) throw new Error(`corrupt pack: an object inflated to ${inflated.length} bytes where its header says ${size}`);
  return inflated;
}

function outcome(read: () => Buffer): { bytes: Buffer } | { error: string } {
  try {
    return { bytes: read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const STRATEGIES = [constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED];

/** Payloads on both sides of the JavaScript inflater's bound: random bytes, text that repeats (long matches), or both. */
const payload = fc.oneof(
  fc.uint8Array({ maxLength: SMALL_INFLATE_BYTES + 1500 }),
  fc.tuple(fc.string({ minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 400 })).map(([text, times]) => new TextEncoder().encode(text.repeat(times))),
  fc.tuple(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 60 }), fc.uint8Array({ maxLength: 300 })).map(([head, times, tail]) => Uint8Array.from([...head, ...Array.from({ length: times }, () => [...head]).flat(), ...tail])),
).map((bytes) => Buffer.from(bytes));

const compression = fc.record({ level: fc.integer({ min: 0, max: 9 }), strategy: fc.constantFrom(...STRATEGIES), windowBits: fc.integer({ min: 9, max: 15 }), memLevel: fc.integer({ min: 1, max: 9 }) });

/** An entry of `size` whose stream starts after a few header bytes and is followed by what lies before the next entry. */
function entryBytes(stream: Buffer, size: number, trailing: Uint8Array): { content: Buffer; entry: PackEntry } {
  return { content: Buffer.concat([Buffer.from([0xb0, 0x01, 0x02]), stream, trailing]), entry: { type: 3, size, data: 3 } };
}

/** A stream with some of its bytes changed, cut short, or its stated size off by a little. */
const damage = fc.record({
  flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
  sizeOff: fc.integer({ min: -2, max: 2 }),
});

function damaged(stream: Buffer, size: number, how: { flips: Array<[number, number]>; cut: number | undefined; sizeOff: number }): { stream: Buffer; size: number } {
  const bytes = Buffer.from(stream);
  for (const [at, mask] of how.flips) if (bytes.length) bytes[at % bytes.length]! ^= mask;
  const cut = how.cut === undefined ? bytes : bytes.subarray(0, how.cut % (bytes.length + 1));
  return { stream: cut, size: Math.max(0, size + how.sizeOff) };
}

describe('pack entries inflated: fflate for small ones, zlib for large ones', () => {
  it('every object comes out as zlib makes it, whatever its compression, with the next entry behind it', () => {
    fc.assert(
      fc.property(payload, compression, fc.uint8Array({ maxLength: 40 }), (content, options, trailing) => {
        const { content: bytes, entry } = entryBytes(deflateSync(content, options), content.length, trailing);
        const inflated = inflateEntry(bytes, entry);
        expect(Buffer.isBuffer(inflated)).toBe(true);
        expect(inflated.equals(content)).toBe(true);
      }),
      { numRuns: runs(400) },
    );
  });

  it('a damaged stream: what zlib reads is read the same, what zlib refuses is refused with its message or made exactly the stated size', () => {
    fc.assert(
      fc.property(payload, compression, damage, fc.uint8Array({ maxLength: 8 }), (content, options, how, trailing) => {
        const { stream, size } = damaged(deflateSync(content, options), content.length, how);
        const { content: bytes, entry } = entryBytes(stream, size, trailing);
        const reference = outcome(() => zlibReference(bytes.subarray(entry.data), size));
        const read = outcome(() => inflateEntry(bytes, entry));
        if ('bytes' in reference) expect('bytes' in read && read.bytes.equals(reference.bytes)).toBe(true);
        else if ('error' in read) expect(read.error).toBe(reference.error);
        else expect(read.bytes.length).toBe(size);
      }),
      { numRuns: runs(1500) },
    );
  });
});

describe('a damaged blob in a pack on disk is its content or refused, never other bytes', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    temp = await makeTempDir();
  });
  afterAll(() => temp.cleanup());

  let run = 0;
  it('ObjectReader.read gives the committed bytes or an Error', async () => {
    await fc.assert(
      fc.asyncProperty(payload, compression, damage, async (content, options, how) => {
        const { stream } = damaged(deflateSync(content, options), content.length, { ...how, sizeOff: 0 });
        const gitdir = join(temp.path, `repo-${run++}`);
        const oid = blobId(content);
        await writeCraftedPack(gitdir, [{ oid, kind: 'blob', data: content, compressed: stream }]);
        const store = new PackStore(gitdir);
        await store.list();
        const reader = new ObjectReader(gitdir, store, () => false);
        try {
          const object = await reader.read(oid);
          expect(object.type).toBe('blob');
          expect(object.content.equals(content)).toBe(true);
        } catch (error) {
          // zlib's own words ("invalid stored block lengths", "Missing dictionary", …), the reader's, or the id check's
          expect(error).toBeInstanceOf(Error);
        } finally {
          store.release();
        }
      }),
      { numRuns: runs(150) },
    );
  });
});
