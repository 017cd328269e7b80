import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDelta, readVarint } from '../../src/scanner/sources/git-delta.js';
import { entryAt } from '../../src/scanner/sources/pack-store.js';
import { runs } from '../helpers/property-runs.js';

// The varints of a pack (an entry's size, an ofs-delta's distance, a delta's two sizes) are a server's bytes: whatever
// they are, each reads as a safe integer or is refused with an Error. ~160 continuation bytes read as NaN (review G F6),
// and NaN passed every `size > limit` check.

/** Bytes that are mostly continuations: the long varints random bytes rarely make. */
const varintBytes = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.tuple(fc.array(fc.integer({ min: 0x80, max: 0xff }), { maxLength: 300 }), fc.integer({ min: 0, max: 0x7f }), fc.uint8Array({ maxLength: 8 })).map(([run, last, rest]) => Uint8Array.from([...run, last, ...rest])),
);

function refusedPlainly(error: unknown): boolean {
  return error instanceof Error && !(error instanceof TypeError) && !(error instanceof RangeError) && /^corrupt /.test(error.message);
}

describe('pack varints read as safe integers or are refused', () => {
  it('readVarint: undefined (truncated), a safe integer, or an Error', () => {
    fc.assert(
      fc.property(varintBytes, (bytes) => {
        try {
          const read = readVarint(bytes, 0);
          if (read !== undefined) expect(Number.isSafeInteger(read.value)).toBe(true);
        } catch (error) {
          expect(refusedPlainly(error), String(error)).toBe(true);
        }
      }),
      { numRuns: runs(2000) },
    );
  });

  it('entryAt: a safe size, and a base offset inside the pack before the entry, or an Error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 7 }), varintBytes, fc.integer({ min: 0, max: 4096 }), (type, bytes, before) => {
        // an entry at `12 + before`, its first byte's type bits set, then the bytes, then room for a trailer
        const content = Buffer.concat([Buffer.from('PACK'), Buffer.alloc(8 + before), Buffer.from([((bytes[0] ?? 0) & 0x8f) | (type << 4)]), Buffer.from(bytes.subarray(1)), Buffer.from(bytes), Buffer.alloc(40)]);
        const offset = 12 + before;
        try {
          const entry = entryAt(content, offset);
          expect(Number.isSafeInteger(entry.size)).toBe(true);
          expect(entry.size).toBeGreaterThanOrEqual(0);
          if (entry.baseOffset !== undefined) {
            expect(Number.isSafeInteger(entry.baseOffset)).toBe(true);
            expect(entry.baseOffset).toBeGreaterThanOrEqual(0);
            expect(entry.baseOffset).toBeLessThan(offset);
          }
        } catch (error) {
          expect(refusedPlainly(error), String(error)).toBe(true);
        }
      }),
      { numRuns: runs(2000) },
    );
  });

  it('applyDelta: its result, or an Error naming a corrupt delta', () => {
    fc.assert(
      fc.property(varintBytes, varintBytes, fc.uint8Array({ maxLength: 16 }), (first, second, base) => {
        try {
          const result = applyDelta(Buffer.concat([first, second]), base, 1024 * 1024);
          expect(result.length).toBeLessThanOrEqual(1024 * 1024);
        } catch (error) {
          expect(error instanceof Error && !(error instanceof TypeError) && !(error instanceof RangeError), String(error)).toBe(true);
        }
      }),
      { numRuns: runs(2000) },
    );
  });
});
