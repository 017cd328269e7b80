import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundBytes } from '../../src/executors/bounded-output.js';
import { GatekeeperAnswerReader } from '../../src/executors/gatekeeper-answer.js';
import { runs } from '../helpers/property-runs.js';

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

function read(json: string | Buffer, cuts: number[], cap: number) {
  const bytes = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  const reader = new GatekeeperAnswerReader(cap);
  let at = 0;
  for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
    const to = Math.min(Math.max(cut, at), bytes.length);
    reader.push(bytes.subarray(at, to));
    at = to;
  }
  return reader.result();
}

// A string's body as a hostile or odd gatekeeper may send it, piece by piece, with the bytes each piece stands for.
// Raw bytes (any but a quote or a backslash: control bytes, bytes that are not UTF-8) pass as they came; a run of escapes
// is the UTF-16 text it spells, written as UTF-8 (a lone surrogate as U+FFFD, as Buffer.from writes it).
type Piece = { raw: Buffer } | { units: number[]; spelled: string };
const rawPiece = fc.uint8Array({ minLength: 1, maxLength: 100, size: 'max' }).map((bytes) => ({ raw: Buffer.from(bytes.filter((byte) => byte !== 0x22 && byte !== 0x5c)) }));
const simpleEscape = fc.constantFrom(['"', 0x22], ['\\', 0x5c], ['/', 0x2f], ['b', 0x08], ['f', 0x0c], ['n', 0x0a], ['r', 0x0d], ['t', 0x09]).map(([letter, unit]) => ({ units: [unit as number], spelled: `\\${letter}` }));
const unitEscape = fc.tuple(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0x7f })), fc.boolean()).map(([unit, upper]) => {
  const hex = unit.toString(16).padStart(4, '0');
  return { units: [unit], spelled: `\\u${upper ? hex.toUpperCase() : hex}` };
});
const pieces = fc.array(fc.oneof(rawPiece, simpleEscape, unitEscape, unitEscape), { maxLength: 30 });

function stringBody(parts: Piece[]): { spelled: Buffer; meant: Buffer } {
  const spelled: Buffer[] = [];
  const meant: Buffer[] = [];
  let units: number[] = [];
  const endEscapes = (): void => {
    if (units.length > 0) meant.push(Buffer.from(units.map((unit) => String.fromCharCode(unit)).join(''), 'utf8'));
    units = [];
  };
  for (const part of parts) {
    if ('raw' in part) {
      // an empty piece spells nothing: escapes on either side of it stay one run (\ud800 + \udc00 is a pair)
      if (part.raw.length === 0) continue;
      endEscapes();
      spelled.push(part.raw);
      meant.push(part.raw);
    } else {
      units.push(...part.units);
      spelled.push(Buffer.from(part.spelled, 'latin1'));
    }
  }
  endEscapes();
  return { spelled: Buffer.concat(spelled), meant: Buffer.concat(meant) };
}

describe('GatekeeperAnswerReader', () => {
  // review O, O7: escapes are decoded in bulk, a run of text at a time; the pieces an answer comes in, a text past the
  // reader's 64 KiB scratch buffer, an escape or a surrogate pair cut in two, change nothing
  it('decodes any string body as JSON.parse would, its raw bytes as they came, however it is cut and however long', () => {
    fc.assert(
      fc.property(pieces, fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 2000 })), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }), fc.integer({ min: 1, max: 300_000 }), (parts, repeat, fractions, cap) => {
        // repeated as pieces, not as bytes: a surrogate pair may form across the seam, as it would for JSON.parse
        const { spelled, meant: expected } = stringBody(Array.from({ length: repeat }, () => parts).flat());
        const answer = Buffer.concat([Buffer.from('{"ok":true,"output":"'), spelled, Buffer.from('","exit_code":0}')]);
        const read_ = read(answer, fractions.map((fraction) => Math.floor(fraction * answer.length)), cap);
        if (typeof read_ === 'string') throw new Error(read_);
        expect(read_.texts.output).toEqual(boundBytes(expected, cap));
        expect(read_.fields).toEqual({ ok: true, exit_code: 0 });
      }),
      {
        numRuns: runs(200),
        // CI, stop 41: a high and a low half with an empty raw piece between them are a pair, 4 bytes, not two U+FFFD
        examples: [[[{ units: [0xd800], spelled: '\\ud800' }, { raw: Buffer.from([]) }, { units: [0xdc00], spelled: '\\udc00' }], 1, [], 1]],
      },
    );
  });

  // review Q, Q3: one step of the bulk decoder may write a replacement sign for a lone high half (3 bytes), a short plain
  // run (32) and then an escape (up to 3): 38 bytes, where the room checked was 35, and at the 64 KiB scratch buffer's end
  // the last bytes were dropped — U+FFFF at byte 65536 came out U+FFFD, unmarked
  it('decodes lone high halves, short runs and \\u escapes across the 64 KiB scratch edge as JSON.parse does', () => {
    const unit = fc.tuple(
      fc.constantFrom('\\ud800', '\\udbff', '\\uD800', ''),
      fc.string({ unit: fc.constantFrom('x', 'é', '中', '~'), minLength: 0, maxLength: 34 }),
      fc.constantFrom('\\uffff', '\\u0800', '\\u07ff', '\\u0041', '\\n', '\\udc00', '\\ud800', '\\"'),
    ).map(([high, run, escape]) => high + run + escape);
    fc.assert(
      fc.property(fc.nat(80), fc.array(unit, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 3 }), (pad, units, cuts) => {
        const once = units.join('');
        const text = 'y'.repeat(pad) + once.repeat(Math.ceil(140_000 / once.length));
        const json = `{"ok":true,"output":"${text}"}`;
        const bytes = Buffer.from(json, 'utf8');
        const read_ = read(bytes, cuts.map((cut) => cut % bytes.length), 1 << 20);
        if (typeof read_ === 'string') throw new Error(read_);
        const want = boundBytes(Buffer.from((JSON.parse(json) as { output: string }).output, 'utf8'), 1 << 20);
        const got = read_.texts.output!;
        // the first difference, not two 140 KB texts, when they differ
        const [gotBytes, wantBytes] = [Buffer.from(got.text, 'utf8'), Buffer.from(want.text, 'utf8')];
        let at = 0;
        while (at < wantBytes.length && gotBytes[at] === wantBytes[at]) at += 1;
        if (at < wantBytes.length || gotBytes.length !== wantBytes.length) expect({ at, got: gotBytes.subarray(at - 4, at + 4).toString('hex'), want: wantBytes.subarray(at - 4, at + 4).toString('hex') }).toBeUndefined();
        expect(got).toEqual(want);
      }),
      { numRuns: runs(60), examples: [[10, ['\\ud800' + 'x'.repeat(31) + '\\uffff'], []], [11, ['\\ud800' + 'x'.repeat(31) + '\\uffff'], []]] },
    );
  });

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
      { numRuns: runs(1000) },
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
