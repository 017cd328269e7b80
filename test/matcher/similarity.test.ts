import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMatcher, FITTED_RANKING } from '../../src/matcher/index.js';
import { runs } from '../helpers/property-runs.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// Both tools have the request's "city"; neither has "storm": only what the words mean tells them apart.
const TOOLS = [
  makeToolDefinition({ name: 'city-weather', intent: 'the rain, snow and wind expected in a city' }),
  makeToolDefinition({ name: 'city-population', intent: 'how many people live in a city' }),
  makeToolDefinition({ name: 'umbrella-shop', intent: 'sell umbrellas and raincoats' }),
];

const WORDS_ONLY = { ...FITTED_RANKING, similarity: 0 };

function names(result: ReturnType<ReturnType<typeof createMatcher>['matchIntent']>): string[] {
  return result.found ? result.candidates.map((candidate) => candidate.name) : [];
}

describe('matchIntent ranking the tools the words found by what the words mean', () => {
  describe('when two tools share the same words of the request', () => {
    it('returns first the one nearer the request in meaning', () => {
      const matcher = createMatcher(makeIndex(TOOLS));
      expect(names(matcher.matchIntent('will a storm hit the city tomorrow'))?.[0]).toBe('city-weather');
      // the words alone put the shorter description first
      expect(names(matcher.reconfigure({ ranking: WORDS_ONLY }).matchIntent('will a storm hit the city tomorrow'))?.[0]).toBe('city-population');
    });

    it('ranks a tool the words did not find only as meaning brings it up, after those the words found', () => {
      const explained = createMatcher(makeIndex(TOOLS)).explainIntent('will a storm hit the city tomorrow');
      expect(explained.found).toBe(true);
      // umbrella-shop has no word of the request: the first stage's nearest in meaning (rank19), ranked last
      expect(explained.ranked.map((entry) => entry.tool.name)).toEqual(['city-weather', 'city-population', 'umbrella-shop']);
      const wordsOnly = createMatcher(makeIndex(TOOLS), { ranking: { ...FITTED_RANKING, meaningDepth: 0 } }).explainIntent('will a storm hit the city tomorrow');
      expect(wordsOnly.ranked.map((entry) => entry.tool.name).sort()).toEqual(['city-population', 'city-weather']);
    });
  });

  describe('when the tools nearer in meaning have the request\'s words only where nothing is said of what they do', () => {
    // "city" is in each tool's `why` but only in what describes census-count: the others are no evidence
    const tools = [
      makeToolDefinition({ name: 'census-count', intent: 'how many people live in a city' }),
      makeToolDefinition({ name: 'rain-gauge', intent: 'rain and snow measured', why: 'asked about a city' }),
      makeToolDefinition({ name: 'wind-meter', intent: 'wind and storm measured', why: 'asked about a city' }),
      makeToolDefinition({ name: 'thunder-alert', intent: 'thunder and lightning warnings', why: 'asked about a city' }),
    ];

    it('does not lift them above the tool whose description has the word, and still finds it', () => {
      const result = createMatcher(makeIndex(tools)).matchIntent('snowstorm city');
      expect(names(result)).toEqual(['census-count']);
    });
  });

  describe('when no word of the request matches any tool', () => {
    it('is found by the words for nothing, and offered only by the vector stage, low, where the nearest stands out', () => {
      const matcher = createMatcher(makeIndex(TOOLS));
      expect(matcher.explainIntent('will it storm tomorrow').found).toBe(false);
      expect(matcher.matchIntent('will it storm tomorrow')).toMatchObject({ found: true, confidence: 'low', stage: 'vector' });
      expect(names(matcher.matchIntent('will it storm tomorrow'))[0]).toBe('city-weather');
    });
  });

  describe('when no word of the request has a vector', () => {
    it('ranks as the words alone do', () => {
      const matcher = createMatcher(makeIndex(TOOLS));
      const request = 'city 人口';
      expect(names(matcher.matchIntent(request))).toEqual(names(matcher.reconfigure({ ranking: WORDS_ONLY }).matchIntent(request)));
    });
  });
});

// Definitions are anyone's with push access and requests a model's: the vectors may re-order, and bring up at most
// `meaningDepth` tools the words did not find (rank19's hybrid first stage), never drop one nor change the decision.
const WORD = fc.constantFrom('city', 'rain', 'storm', 'weather', 'people', 'file', 'delete', 'copy', 'image', 'resize', 'zzqx', '天气', 'send', 'mail');
const TEXT = fc.array(WORD, { minLength: 1, maxLength: 8 }).map((words) => words.join(' '));

describe('the re-rank by meaning, over any registry and request', () => {
  it('ranks the tools the words alone rank and at most meaningDepth more, and decides alike whether anything matches', () => {
    fc.assert(
      fc.property(fc.array(TEXT, { minLength: 1, maxLength: 9 }), TEXT, (intents, request) => {
        const tools = intents.map((intent, at) => makeToolDefinition({ name: `tool-${at}`, intent }));
        const matcher = createMatcher(makeIndex(tools));
        const near = matcher.explainIntent(request);
        const words = matcher.reconfigure({ ranking: WORDS_ONLY }).explainIntent(request);
        const nearNames = near.ranked.map((entry) => entry.tool.name);
        const wordNames = words.ranked.map((entry) => entry.tool.name);
        // explained: at most EXPLAINED_TOOLS (10) of each
        if (wordNames.length < 10) for (const name of wordNames) expect(nearNames).toContain(name);
        const added = near.ranked.filter((entry) => !wordNames.includes(entry.tool.name));
        expect(added.length).toBeLessThanOrEqual(FITTED_RANKING.meaningDepth);
        for (const entry of added) expect(entry.features.matchedWords).toBe(0);
        expect([near.found, near.evidence]).toEqual([words.found, words.evidence]);
        for (const entry of near.ranked) expect(Number.isFinite(entry.score)).toBe(true);
      }),
      { numRuns: runs(100) },
    );
  });
});
