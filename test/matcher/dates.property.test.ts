import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestDates } from '../../src/matcher/dates.js';
import { runs } from '../helpers/property-runs.js';

// words with no digit in them, of several scripts, and the spaces and punctuation around values
const WORDS = ['weather', 'in', 'Fremont', 'on', 'the', 'please', 'book', 'from', 'to', 'Привет', '天气', 'é', ',', '.', '?', '(', ')', ' ', '  ', '\n'];
const wordsArbitrary = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((words) => words.join(' '));

const MONTHS = ['January', 'Feb', 'march', 'Apr.', 'May', 'june', 'Jul', 'August', 'Sept', 'oct', 'November', 'DEC'];
const dateArbitrary = fc
  .record({ year: fc.integer({ min: 1900, max: 2099 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }), form: fc.integer({ min: 0, max: 6 }) })
  .map(({ year, month, day, form }) => {
    const name = MONTHS[month - 1]!;
    const two = (n: number): string => String(n).padStart(2, '0');
    return [
      `${year}-${two(month)}-${two(day)}`,
      `${month}/${day}/${year}`,
      `${name} ${day}, ${year}`,
      `${day}th of ${name} ${year}`,
      `${name} ${year}`,
      `${year}年${month}月${day}日`,
      `${month}月${day}日`,
    ][form]!;
  });

describe('requestDates', () => {
  describe('when a request without digits gives one date, in any of the forms it reads', () => {
    it('counts one', () => {
      fc.assert(
        fc.property(wordsArbitrary, dateArbitrary, wordsArbitrary, (before, date, after) => {
          expect(requestDates(`${before} ${date} ${after}`)).toBe(1);
        }),
        { numRuns: runs(300) },
      );
    });
  });

  describe('when a request has no digit', () => {
    it('counts none', () => {
      fc.assert(
        fc.property(fc.oneof(wordsArbitrary, fc.string({ maxLength: 60 })), (text) => {
          fc.pre(!/\d/.test(text));
          expect(requestDates(text)).toBe(0);
        }),
        { numRuns: runs(300) },
      );
    });
  });

  describe('when given any text', () => {
    it('counts no more dates than the text has runs of digits', () => {
      fc.assert(
        fc.property(fc.array(fc.oneof(wordsArbitrary, dateArbitrary, fc.string({ maxLength: 12 })), { maxLength: 6 }), (pieces) => {
          const text = pieces.join(' ');
          expect(requestDates(text)).toBeLessThanOrEqual(text.slice(0, 1024).match(/\d+/g)?.length ?? 0);
        }),
        { numRuns: runs(300) },
      );
    });
  });
});
