import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { PackStore } from '../../src/scanner/sources/pack-store.js';
import { DELTA_SIZES_BYTES, deltaResultSize, entryStreamHead } from '../../src/scanner/sources/stream-head.js';
import { craftDelta } from '../helpers/crafted-pack.js';
import { makeTempDir } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// A delta's head (its two sizes) is read from the start of its zlib stream however many empty blocks open it
// (review Z17-8): inflated as it streams from a pack entry's bytes, read in growing spans. For any stream zlib writes,
// opened by any number of empty stored or fixed blocks, the head is the data's first bytes; for any bytes at all, it
// never throws and never holds more than asked.

/** zlib's stream of `data`, opened by `fixed` runs of four empty fixed-Huffman blocks and `stored` empty stored blocks (each a few bytes making nothing). */
function opened(data: Uint8Array, stored: number, fixed: number, level: number, strategy: number): Buffer {
  const whole = deflateSync(data, { level, strategy });
  // zlib's own header and Adler-32, its deflate blocks between them written again after the empty ones: an empty fixed
  // block is 10 bits (BFINAL 0, BTYPE 01, end-of-block 0000000, the first bit lowest), so four of them are 5 bytes
  const deflated = deflateRawSync(data, { level, strategy });
  const fixedRun = Buffer.from([0x02, 0x08, 0x20, 0x80, 0x00]);
  const storedBlock = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);
  return Buffer.concat([whole.subarray(0, 2), ...new Array<Buffer>(fixed).fill(fixedRun), ...new Array<Buffer>(stored).fill(storedBlock), deflated, whole.subarray(whole.length - 4)]);
}

const data = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.tuple(fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.uint8Array({ maxLength: 200 })).map(([base, result, rest]) => craftDelta(base, result, Buffer.from(rest))),
  fc.tuple(fc.string({ minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 3000 })).map(([text, times]) => new TextEncoder().encode(text.repeat(times))),
);

/** An entry of `header` bytes then `stream`, then the next entry's bytes (which a read never gives): `read(most)` as `PackFile.entry`. */
function entryReader(header: number, stream: Buffer): { read: (most: number) => Buffer; asked: number[] } {
  const entry = Buffer.concat([Buffer.alloc(header, 0x9d), stream]);
  const asked: number[] = [];
  return { asked, read: (most) => (asked.push(most), entry.subarray(0, Math.min(most, entry.length))) };
}

describe('the head of a zlib stream opened by empty blocks', () => {
  it('is the data\'s first bytes, however many empty blocks open it and whatever follows it', async () => {
    const strategies = [constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED];
    await fc.assert(
      fc.asyncProperty(
        data,
        fc.integer({ min: 0, max: 8000 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 9 }),
        fc.constantFrom(...strategies),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 1, max: 64 }),
        fc.uint8Array({ maxLength: 100 }),
        async (bytes, stored, fixed, level, strategy, header, want, after) => {
          // what follows the stream in its entry (zlib stops at the stream's end) is never read as its bytes
          const stream = Buffer.concat([opened(bytes, stored, fixed, level, strategy), after]);
          const { read } = entryReader(header, stream);
          const head = await entryStreamHead(read, header, want);
          expect(head.equals(Buffer.from(bytes).subarray(0, want))).toBe(true);
        },
      ),
      { numRuns: runs(150) },
    );
  });

  it('says a delta\'s result size, as its whole delta does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 50 }), fc.uint8Array({ maxLength: 100 }), fc.integer({ min: 0, max: 3000 }), async (base, result, rest, stored) => {
        const delta = craftDelta(base, result, Buffer.from(rest));
        const { read } = entryReader(3, opened(delta, stored, 0, 6, constants.Z_DEFAULT_STRATEGY));
        expect(deltaResultSize(await entryStreamHead(read, 3, DELTA_SIZES_BYTES))).toBe(result);
      }),
      { numRuns: runs(100) },
    );
  });

  it('of any bytes at all never throws, and holds at most what was asked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 40_000 }), fc.boolean(), fc.integer({ min: 0, max: 16 }), fc.integer({ min: 1, max: 40 }), async (bytes, zlibHeader, header, want) => {
        // half the time a valid zlib header first, so that the deflate blocks after it are what is tried
        const { read } = entryReader(header, Buffer.concat([zlibHeader ? Buffer.from([0x78, 0x9c]) : Buffer.alloc(0), bytes]));
        expect((await entryStreamHead(read, header, want)).length).toBeLessThanOrEqual(want);
      }),
      { numRuns: runs(300) },
    );
  });

  it('reads the entry in spans twice as long each time, none past the one where the stream ends', async () => {
    // 60,000 empty stored blocks: 300,000 bytes of nothing before the data
    const stream = opened(craftDelta(7, 123_456_789, Buffer.from([0x90, 7])), 60_000, 0, 6, constants.Z_DEFAULT_STRATEGY);
    const { read, asked } = entryReader(2, Buffer.concat([stream, Buffer.alloc(4 * 1024 * 1024)]));
    expect(deltaResultSize(await entryStreamHead(read, 2, DELTA_SIZES_BYTES))).toBe(123_456_789);
    expect(asked).toEqual([2 + 16 * 1024, ...[2, 4, 8, 16, 32].map((times) => (2 + 16 * 1024) * times)]);
  });
});

// A loose object's size was read from a 512-byte head of its zlib stream: opened by empty blocks, the head made nothing,
// and the object was read whole (up to 64 MiB) before a definition's bound refused it (fixm25's Left, sig26). Its
// header is now read as a pack entry's head is: for any blob, however many empty blocks open its stream, the size is
// its header's, and one over the bound is refused by that size, not read.
describe('a loose object whose zlib stream opens with empty blocks', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    temp = await makeTempDir('hldp-loose-head-');
    await mkdir(join(temp.path, 'objects', 'pack'), { recursive: true });
  });
  afterAll(async () => temp.cleanup());

  it('is sized by its header, and refused by it past the bound without being read', async () => {
    const reader = new ObjectReader(temp.path, new PackStore(temp.path));
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), fc.integer({ min: 0, max: 8000 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 9 }), async (bytes, stored, fixed, level) => {
        const object = Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]);
        const oid = createHash('sha1').update(object).digest('hex');
        await mkdir(join(temp.path, 'objects', oid.slice(0, 2)), { recursive: true });
        await writeFile(join(temp.path, 'objects', oid.slice(0, 2), oid.slice(2)), opened(object, stored, fixed, level, constants.Z_DEFAULT_STRATEGY));
        expect(await reader.size(oid)).toBe(bytes.length);
        if (bytes.length > 0) expect(await reader.readUpTo(oid, 'blob', bytes.length - 1)).toBe(bytes.length);
        const read = await reader.readUpTo(oid, 'blob', bytes.length);
        expect(typeof read !== 'number' && Buffer.from(read.content).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: runs(150) },
    );
  });
});
