import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringTable } from '../../src/scanner/string-table.js';
import { runs } from '../helpers/property-runs.js';

describe('StringTable', () => {
  describe('when sharing the strings of values sent between threads', () => {
    it('returns each value equal to what it was, at any depth, whatever its keys', () => {
      fc.assert(
        fc.property(fc.array(fc.jsonValue({ maxDepth: 6 }), { maxLength: 20 }), (values) => {
          const table = new StringTable(8, 12);
          for (const value of values) expect(table.shareStrings(structuredClone(value))).toEqual(value);
        }),
        { numRuns: runs(200) },
      );
    });

    it('keeps own keys that name the prototype as plain properties', () => {
      const value = JSON.parse('{"__proto__":"string","nested":{"__proto__":{"type":"string"}},"list":["string",{"__proto__":"x"}]}') as unknown;
      const shared = new StringTable().shareStrings(structuredClone(value));
      expect(shared).toEqual(value);
      expect(Object.getPrototypeOf(shared)).toBe(Object.prototype);
      expect(Object.keys(shared as object)).toEqual(['__proto__', 'nested', 'list']);
    });

    it('goes on past its bound and past its longest string, leaving those as they are', () => {
      const table = new StringTable(2, 4);
      const values = Array.from({ length: 10 }, (_, index) => ({ name: `n${index}`, long: 'x'.repeat(index + 1), type: 'string' }));
      expect(values.map((value) => table.shareStrings(structuredClone(value)))).toEqual(values);
    });
  });
});
