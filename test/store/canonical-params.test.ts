import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashParams } from '../../src/store/index.js';
import { runs } from '../helpers/property-runs.js';

describe('canonicalJson', () => {
  describe('when params differ only in form', () => {
    it.each([
      ['key order', { b: 1, a: { d: 2, c: 3 } }, { a: { c: 3, d: 2 }, b: 1 }],
      ['undefined members', { a: 1, b: undefined }, { a: 1 }],
      ['nested key order in lists', [{ y: 1, x: 2 }], [{ x: 2, y: 1 }]],
    ])('returns the same text for %s', (_case, left, right) => {
      expect(canonicalJson(left)).toBe(canonicalJson(right));
    });
  });

  describe('when params differ in content', () => {
    it.each([
      ['a value', { a: 1 }, { a: 2 }],
      ['a type', { a: 1 }, { a: '1' }],
      ['list order', { a: [1, 2] }, { a: [2, 1] }],
      ['null and a missing member', { a: null }, {}],
    ])('returns different hashes for %s', (_case, left, right) => {
      expect(hashParams(left as Record<string, unknown>)).not.toBe(hashParams(right as Record<string, unknown>));
    });
  });

  it('returns compact JSON with sorted keys', () => {
    expect(canonicalJson({ z: 'x', a: [true, null] })).toBe('{"a":[true,null],"z":"x"}');
  });
});

describe('canonicalJson of integer-like keys', () => {
  it('returns them in code-point order, not the order a JS object lists them in', () => {
    expect(canonicalJson({ b: 1, 10: 'ten', 9: 'nine', a: [undefined, { 2: 0, 1: 0 }] })).toBe('{"10":"ten","9":"nine","a":[null,{"1":0,"2":0}],"b":1}');
  });
});

// the recursive writer every stored receipt was hashed with: the iterative one must write the same text, byte for byte
function recursiveCanonical(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') return recursiveCanonical((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => recursiveCanonical(item) ?? 'null').join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const text = recursiveCanonical((value as Record<string, unknown>)[key]);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

describe('canonicalJson of any JSON value', () => {
  const withUndefinedAndDates = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.jsonValue({ maxDepth: 2 }),
      fc.constant(undefined),
      fc.date({ noInvalidDate: true }),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 5 }),
    ),
  })).value;

  it('returns the text the recursive writer returned, so that every stored receipt still hashes the same', () => {
    fc.assert(fc.property(withUndefinedAndDates, (value) => {
      expect(canonicalJson(value)).toBe(recursiveCanonical(value) ?? 'null');
    }), { numRuns: runs(500) });
  });

  it.each([
    ['objects', (inner: string) => `{"b":${inner},"a":1}`],
    ['arrays', (inner: string) => `[1,${inner}]`],
  ])('writes %s nested 100,000 deep without overflowing the stack', (_shape, wrap) => {
    let text = 'null';
    for (let depth = 0; depth < 100_000; depth += 1) text = wrap(text);
    const canonical = canonicalJson(JSON.parse(text));
    expect(canonical.length).toBe(text.length);
    expect(canonical.startsWith(_shape === 'objects' ? '{"a":1,"b":{"a":1,' : '[1,[1,')).toBe(true);
  });
});
