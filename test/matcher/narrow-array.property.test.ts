import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayOf, holding, largest, narrowed, resized, widthFor, widthOf, WIDTHS, type NarrowArray, type Width } from '../../src/matcher/narrow-array.js';
import { runs } from '../helpers/property-runs.js';

// The search index keeps its codes, field lengths and records' numbers as narrow as they fit (issue #18): narrowing and
// widening must never change a number, and must pick the narrowest width that holds them.

const LARGEST: Record<Width, number> = { 1: 255, 2: 65_535, 4: 2 ** 31 - 1 };
const number = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: LARGEST[4] }));
const width = fc.constantFrom<Width>(...WIDTHS);
const arrayOfNumbers = (numbers: number[], at: Width): NarrowArray => {
  const array = arrayOf(widthFor(largest(numbers), at), numbers.length);
  array.set(numbers);
  return array;
};

describe('narrow arrays', () => {
  describe('when narrowed', () => {
    it('hold the same numbers in the narrowest width that holds them all, no narrower than asked', () => {
      fc.assert(
        fc.property(fc.array(number, { maxLength: 40 }), width, width, (numbers, written, narrowest) => {
          const array = narrowed(arrayOfNumbers(numbers, written), narrowest);
          expect([...array]).toEqual(numbers);
          const needed = WIDTHS.find((candidate) => candidate >= narrowest && numbers.every((value) => value <= LARGEST[candidate]))!;
          expect(widthOf(array)).toBe(needed);
        }),
        { numRuns: runs(300) },
      );
    });
  });

  describe('when asked to hold a number', () => {
    it('return the same array when it fits, else a copy wide enough that keeps every number', () => {
      fc.assert(
        fc.property(fc.array(number, { maxLength: 40 }), width, number, (numbers, written, value) => {
          const array = arrayOfNumbers(numbers, written);
          const held = holding(array, value);
          expect([...held]).toEqual(numbers);
          if (value <= LARGEST[widthOf(array)]) expect(held).toBe(array);
          else expect(value).toBeLessThanOrEqual(LARGEST[widthOf(held)]);
          expect(widthOf(held)).toBeGreaterThanOrEqual(widthOf(array));
          if (held.length > 0) {
            held[0] = value;
            expect(held[0]).toBe(value);
          }
        }),
        { numRuns: runs(300) },
      );
    });
  });

  describe('when resized', () => {
    it('keep their width and their first numbers, zeros after', () => {
      fc.assert(
        fc.property(fc.array(number, { maxLength: 40 }), width, fc.nat({ max: 60 }), (numbers, written, length) => {
          const array = arrayOfNumbers(numbers, written);
          const copy = resized(array, length);
          expect(widthOf(copy)).toBe(widthOf(array));
          expect([...copy]).toEqual(Array.from({ length }, (_, at) => numbers[at] ?? 0));
        }),
        { numRuns: runs(200) },
      );
    });
  });
});
