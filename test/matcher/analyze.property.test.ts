import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeWords, splitIdentifiers } from '../../src/matcher/analyze.js';
import { runs } from '../helpers/property-runs.js';

// identifiers, several scripts, every kind of space and the separators identifiers are split on
const PIECES = ['getWeather', 'calculate_triangle_area', 'math.factorial', 'HTTPServer', 'ABCd', 'v2', '8080', 'Tokyo', 'ＡＢＣ', '查看提交记录', 'ฉันต้องการ', 'Привет', 'e\u0301', ' ', '  ', '\t', '\n', '\u3000', '\u00a0', '_', '.', ':', '-', ',', 'a'];
const textArbitrary = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 4 })), { maxLength: 12 }).map((pieces) => pieces.join(''));

describe('analyzeWords', () => {
  describe('when given any text', () => {
    it('returns the words of its identifiers split and joined by single spaces (what it read before it skipped that step)', () => {
      fc.assert(
        fc.property(textArbitrary, fc.constantFrom(Infinity, 1, 3, 16), (text, limit) => {
          expect(analyzeWords(text, limit)).toEqual(analyzeWords(splitIdentifiers(text).join(' '), limit));
        }),
        { numRuns: runs(500) },
      );
    });
  });
});
