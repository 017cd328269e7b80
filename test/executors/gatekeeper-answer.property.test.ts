import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundBytes } from '../../src/executors/bounded-output.js';
import { GatekeeperAnswerReader } from '../../src/executors/gatekeeper-answer.js';

// A gatekeeper's answer is read as it arrives (review K, K11): whatever the pieces it comes in, its texts are what
// JSON.parse would make of them, held to the cap as boundBytes holds a local run's output, and its other fields parsed.

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  // lone and paired surrogates, escapes and the characters JSON escapes
  fc.array(fc.constantFrom('\ud800', '\udc00', '\ud83d\ude00', '"', '\\', '\n', '\u0000', '\u001f', '/', 'é', '中'), { maxLength: 12 }).map((parts) => parts.join('')),
);
const scalar = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 8 }));
const other = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 })), { maxKeys: 3 });
const answer = fc.record(
  { ok: fc.boolean(), output: text, stderr: text, error: fc.oneof(text, fc.constant(null)), code: fc.oneof(fc.constant(null), fc.constantFrom('NONZERO_EXIT', 'TIMEOUT')), exit_code: fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constant(null)), output_bytes: fc.nat(), cut_bytes: fc.nat() },
  { requiredKeys: ['ok'] },
);

function read(json: string, cuts: number[], cap: number) {
  const bytes = Buffer.from(json, 'utf8');
  const reader = new GatekeeperAnswerReader(cap);
  let at = 0;
  for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
    const to = Math.min(Math.max(cut, at), bytes.length);
    reader.push(bytes.subarray(at, to));
    at = to;
  }
  return reader.result();
}

describe('GatekeeperAnswerReader', () => {
  it('reads what JSON.parse reads, however the answer is cut into pieces, its texts held to the cap', () => {
    fc.assert(
      fc.property(answer, other, fc.array(fc.nat(400), { maxLength: 8 }), fc.integer({ min: 1, max: 120 }), fc.boolean(), (result, extra, cuts, cap, spaced) => {
        const json = JSON.stringify({ ...extra, ...result }, null, spaced ? 1 : undefined);
        const parsed = JSON.parse(json) as Record<string, unknown>;
        const read_ = read(json, cuts, cap);
        if (typeof read_ === 'string') throw new Error(`${read_} for ${json}`);
        for (const field of ['output', 'stderr', 'error'] as const) {
          const value = parsed[field];
          if (typeof value === 'string') expect(read_.texts[field]).toEqual(boundBytes(value, cap));
          else expect(read_.texts[field]).toBeUndefined();
        }
        for (const field of ['ok', 'code', 'exit_code', 'output_bytes', 'cut_bytes'] as const) expect(read_.fields[field]).toEqual(parsed[field]);
        if (parsed.error === null) expect(read_.fields.error).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps the last of a repeated member, as JSON.parse does', () => {
    const json = '{"output":"first","ok":false,"output":"second","ok":true,"output":7}';
    const read_ = read(json, [5, 30], 100);
    expect(read_).toMatchObject({ fields: { ok: true, output: 7 }, texts: {} });
  });

  it('refuses what is not one object, whatever the pieces', () => {
    fc.assert(
      fc.property(fc.constantFrom('', '[]', '"x"', '{"ok":true', '{"ok":true}}', '{"ok" true}', '{"ok":true,}x', '{"output":"\\q"}', '{"output":"\\u12G4"}', 'nul'), fc.array(fc.nat(20), { maxLength: 4 }), (json, cuts) => {
        expect(typeof read(json, cuts, 50)).toBe('string');
      }),
    );
  });

  it('holds memory to the cap for an answer of any size: a kept field past 4096 bytes is refused, an unknown one skipped', () => {
    expect(read(`{"ok":true,"code":"${'c'.repeat(5000)}"}`, [], 10)).toMatch(/a 'code' longer than 4096 bytes/);
    expect(read(`{"ok":true,"junk":["${'j'.repeat(100_000)}",{"a":[1,2]}],"output":"${'o'.repeat(100_000)}"}`, [7, 1000, 50_000], 10)).toMatchObject({ fields: { ok: true }, texts: { output: { totalBytes: 100_000, cutBytes: expect.any(Number) } } });
  });
});
