import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { relativeDates } from '../../src/matcher/relative-dates.js';
import { runs } from '../helpers/property-runs.js';

// words that say no time, of several scripts, and the spaces and punctuation around them
const WORDS = ['weather', 'in', 'Paris', 'on', 'the', 'please', 'book', 'from', 'to', 'Привет', 'погода', '天气', '北京', 'é', ',', '.', '?', '(', ')', ' ', '  ', '\n'];
const wordsArbitrary = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((words) => words.join(' '));

// one of each kind the list reads, in the case a user may type it
const WHEN = ['tomorrow', 'Today', 'YESTERDAY', 'tonight', 'right now', 'next week', 'last  month', 'this Friday', 'tomorrow morning', 'завтра', 'Сегодня', 'вчерашние', 'следующей неделе', 'прошлом году', '明天', '下周', '上个月', '星期天', '现在', 'mañana', 'morgen', "aujourd'hui", '来週'];

describe('relativeDates', () => {
  describe('when a request says when once, among words that say no time', () => {
    it('returns that span, lower-cased', () => {
      fc.assert(
        fc.property(wordsArbitrary, fc.constantFrom(...WHEN), wordsArbitrary, (before, when, after) => {
          expect(relativeDates(`${before} ${when} ${after}`)).toEqual([when.toLowerCase()]);
        }),
        { numRuns: runs(300) },
      );
    });
  });

  describe('when a word only begins or ends like one', () => {
    it.each(['todays tomorrowland', 'nowhere known', 'snowy mondays', 'yesterdays', 'завтрак в кафе'])('returns nothing for %s', (text) => {
      expect(relativeDates(text)).toEqual([]);
    });
  });

  describe('when any text is read', () => {
    it('returns only spans of it, lower-cased', () => {
      fc.assert(
        fc.property(fc.oneof(wordsArbitrary, fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 })), (text) => {
          for (const span of relativeDates(text)) expect(text.toLowerCase()).toContain(span);
        }),
        { numRuns: runs(300) },
      );
    });
  });
});
