// Issue #11 (rank19): a hybrid first stage. Beside the tools the words find (BM25+), the few tools nearest the request
// in meaning (the cosine of word vectors) join the re-rank, which judges them by the same features, their cosine
// counted. They are ranked; whether anything matches stays the words' decision, so a tool brought up by meaning alone
// never makes a request answerable, nor a weak match confident.
import { describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import { createMatcher, FITTED_RANKING } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

const TOOLS = [
  // what the request is about, in other words than the request's
  makeToolDefinition({ name: 'city-weather', intent: 'the rain, snow and wind expected in a city' }),
  // the only tool with a word of the request ("hit"), about something else
  makeToolDefinition({ name: 'page-counter', intent: 'count the hits on a web page' }),
  makeToolDefinition({ name: 'invoice-send', intent: 'email an invoice to a customer' }),
  makeToolDefinition({ name: 'disk-usage', intent: 'how much space the folders take on disk' }),
  makeToolDefinition({ name: 'music-play', intent: 'play a song on the speakers' }),
];
// shares "hit" with page-counter and no word with city-weather
const REQUEST = 'will a thunderstorm hit us tomorrow';
const WORDS_FIRST_STAGE = { ...FITTED_RANKING, meaningDepth: 0 };

const names = (result: MatchResult): string[] => (result.found ? result.candidates.map((candidate) => candidate.name) : []);

describe('the first stage: the words and the tools nearest in meaning', () => {
  it('ranks a tool that shares no word with the request but is nearest it in meaning, beside what the words found', () => {
    const matcher = createMatcher(makeIndex(TOOLS));
    const explained = matcher.explainIntent(REQUEST);
    const ranked = explained.ranked.map((entry) => entry.tool.name);
    expect(ranked).toContain('city-weather');
    expect(ranked).toContain('page-counter');
    // brought up by meaning: no word of the request is in it
    expect(explained.ranked.find((entry) => entry.tool.name === 'city-weather')!.features.matchedWords).toBe(0);
    // the answer offers beside its first only tools with a word of the request: city-weather is ranked, not offered
    expect(names(matcher.matchIntent(REQUEST))).toEqual(['page-counter']);
    // with the words' first stage alone, only what has a word of the request is ranked
    const wordsOnly = matcher.reconfigure({ ranking: WORDS_FIRST_STAGE }).explainIntent(REQUEST);
    expect(wordsOnly.ranked.map((entry) => entry.tool.name)).toEqual(['page-counter']);
  });

  it('brings up at most meaningDepth tools, the nearest first', () => {
    const matcher = createMatcher(makeIndex(TOOLS));
    const one = matcher.reconfigure({ ranking: { ...FITTED_RANKING, meaningDepth: 1 } }).explainIntent(REQUEST);
    expect(one.ranked.map((entry) => entry.tool.name).sort()).toEqual(['city-weather', 'page-counter']);
  });

  it('leaves whether anything matches to the words: a request no tool has a word of is not found by them', () => {
    const matcher = createMatcher(makeIndex(TOOLS));
    const explained = matcher.explainIntent('is a thunderstorm coming tomorrow');
    // meaning ranks tools, but none has evidence: the words' answer is found: false
    expect(explained.ranked.length).toBeGreaterThan(0);
    expect(explained.found).toBe(false);
    // and the answer is the vector stage's (low) or found: false, never a lexical one
    const answer = matcher.matchIntent('is a thunderstorm coming tomorrow');
    expect(answer.found === false || (answer.confidence === 'low' && answer.stage === 'vector')).toBe(true);
  });

  it('never makes a match high on a tool brought up by meaning alone', () => {
    const matcher = createMatcher(makeIndex(TOOLS));
    const answer = matcher.matchIntent(REQUEST);
    expect(answer.found).toBe(true);
    const explained = matcher.explainIntent(REQUEST);
    if (explained.ranked[0]!.features.matchedWords === 0) expect(answer).toMatchObject({ confidence: 'low' });
    else expect(explained.ranked[0]!.tool.name).toBe('page-counter');
  });

  it('adds nothing where the words found every tool', () => {
    const tools = TOOLS.map((tool) => ({ ...tool, why: 'asked about the weather' }));
    const matcher = createMatcher(makeIndex(tools));
    const both = matcher.explainIntent('weather tomorrow').ranked.map((entry) => entry.tool.name).sort();
    const words = matcher.reconfigure({ ranking: WORDS_FIRST_STAGE }).explainIntent('weather tomorrow').ranked.map((entry) => entry.tool.name).sort();
    expect(both).toEqual(words);
  });
});
