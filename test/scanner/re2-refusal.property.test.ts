import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUnsupportedConstruct, re2Problem } from '../../src/scanner/re2-refusal.js';
import { runs } from '../helpers/property-runs.js';

// the advice "rewrite it without look-around or back-references" follows only from a pattern that holds one (userU, F3)
describe('isUnsupportedConstruct', () => {
  describe('when RE2 refuses any pattern', () => {
    it('says look-around or back-reference only of a pattern holding (?=, (?!, (?<=, (?<!, \\1-\\9 or \\k', () => {
      const piece = fc.constantFrom('(', ')', '[', ']', '^', '-', '?', '=', '!', '<', '>', '\\', '1', 'k', '*', '{', '}', 'a', '|', ',', '2');
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join('')), (pattern) => {
          const reason = re2Problem(pattern);
          if (reason === undefined || !isUnsupportedConstruct(reason)) return;
          expect(pattern).toMatch(/\(\?[=!]|\(\?<[=!]|\\[1-9k]/);
        }),
        { numRuns: runs(3000) },
      );
    });
  });

  describe('when the pattern holds look-around or a back-reference and is otherwise sound', () => {
    it.each(['(?=a)b', '(?!a)b', '(?<=a)b', '(?<!a)b', '(a)\\1', '(?<n>a)\\k<n>'])('says so of %s', (pattern) => {
      expect(isUnsupportedConstruct(re2Problem(pattern)!)).toBe(true);
    });
  });
});
