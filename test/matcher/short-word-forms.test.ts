import { describe, expect, it } from 'vitest';
import { analyze, createMatcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// Issue #11: the English stemmer was given only words of four letters or more, so a three-letter word stood apart from
// its own forms (day / days, age / ages, buy / buying); and a stem of two letters from a longer word (using, used,
// uses → `us`) was read as that two-letter word (*us*, the *US*), while *news* was stemmed to *new*.
const CALENDAR = makeToolDefinition({ name: 'holiday-calendar', intent: 'Lists the public holidays and the days off of a country' });
const AGES = makeToolDefinition({ name: 'population-statistics', intent: 'Median ages and life expectancy of a population' });
const DEPLOY = makeToolDefinition({ name: 'deploy-service', intent: 'Deploys the service using a blue-green rollout' });
const NEWS = makeToolDefinition({ name: 'news-digest', intent: 'Latest headlines from trusted news sources' });
const BUYING = makeToolDefinition({ name: 'shopping-list', intent: 'Keeps a list of things worth buying and what they cost' });

describe('matchIntent when a request word is short', () => {
  describe('when the tool has another form of a three-letter word', () => {
    it.each([
      ['which day is Easter this year', 'holiday-calendar'],
      ['what is the average age in Japan', 'population-statistics'],
      ['what should I buy for the party', 'shopping-list'],
    ])('returns the tool for %s', (request, tool) => {
      const result = createMatcher(makeIndex([CALENDAR, AGES, DEPLOY, NEWS, BUYING])).matchIntent(request);
      expect(result.found && result.candidates[0]!.name).toBe(tool);
    });
  });

  describe('when a request word is only spelled like a stem of two letters, or like news without its s', () => {
    it.each([['tell us a joke'], ['which US state is the largest'], ['set up a new router']])('finds nothing by the words for %s', (request) => {
      const matcher = createMatcher(makeIndex([CALENDAR, AGES, DEPLOY, NEWS, BUYING]));
      expect(matcher.explainIntent(request).found).toBe(false);
      // only the vector stage may offer a tool then (which US state is the largest: shopping-list, a little nearer in
      // meaning than the four others), never the words
      expect(matcher.matchIntent(request)).not.toMatchObject({ stage: 'lexical' });
    });
  });
});

describe('analyze', () => {
  describe('when words are forms of one short word', () => {
    it.each([
      ['day', 'days'],
      ['use', 'using'],
      ['use', 'used'],
      ['age', 'ages'],
      ['add', 'added'],
      ['buy', 'buying'],
    ])('returns %s and %s stemmed alike', (word, form) => {
      expect(analyze(word)).toEqual(analyze(form));
    });
  });

  describe('when a word is a two-letter word, an abbreviation or news', () => {
    it.each([
      ['us', 'using'],
      ['new', 'news'],
      ['bus', 'bu'],
      ['gas', 'ga'],
    ])('returns %s and %s apart', (word, other) => {
      expect(analyze(word)).not.toEqual(analyze(other));
    });
  });
});
