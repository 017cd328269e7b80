import { describe, expect, it } from 'vitest';
import { canonicalJson, hashParams } from '../../src/store/index.js';

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
