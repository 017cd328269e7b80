// Issue #11 (rank23): a request sharing no word with its tool, whose words WordNet relates to the tool's (snow →
// precipitation, cold → temperature, kill → terminate), was answered found: false. Where neither meaning alone nor the
// words' near miss answers, the request is read again with each English word's related words (assets/thesaurus,
// derived from WordNet 3.1) as its senses, and the first tool those find is offered — low, stage "vector", saying which
// word it has through which — only where it is also the tool nearest in meaning and the two together are unlikely by
// chance (`meaningAgrees`). Requests that fit no tool stay refused.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult, ToolDefinition } from '../../src/core/index.js';
import { createMatcher, formatMatchResult, loadLexicon, type Matcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition, scanStarterTools } from './helpers.js';

// a small consumer registry, each tool described in its own words (none of them snow, cold or weather)
function tool(name: string, intent: string, params: Record<string, string>): ToolDefinition {
  const properties = Object.fromEntries(Object.entries(params).map(([key, description]) => [key, { type: 'string', description }]));
  return makeToolDefinition({ name, display: name, intent, params_schema: { type: 'object', properties, required: Object.keys(params).slice(0, 1), additionalProperties: false } });
}
const TOOLS = [
  tool('weather-report', 'Temperature, precipitation and wind for a city, today and the next days.', { city: 'the city', days: 'how many days ahead' }),
  tool('job-board', 'Open positions and vacancies from employers near you.', { role: 'the position', place: 'where' }),
  tool('translator', 'Translate text between languages.', { text: 'what to translate', target: 'target language' }),
  tool('taxi', 'Order a car to take you somewhere, with a fare estimate.', { pickup: 'start address', dropoff: 'destination' }),
  tool('recipes', 'Find cooking recipes by dish or ingredients.', { query: 'dish or ingredients' }),
  tool('stocks', 'Share prices and market data for listed companies.', { symbol: 'ticker' }),
  tool('calendar', 'Add, move or cancel appointments in your agenda.', { title: 'what', start: 'when' }),
  tool('music', 'Play songs, albums and playlists on your speakers.', { query: 'song or artist' }),
  tool('flights', 'Compare airline fares between airports on given dates.', { origin: 'from', destination: 'to', date: 'when' }),
  tool('news', 'Latest headlines and articles by topic.', { topic: 'subject' }),
  tool('real-estate', 'Home values, listings and rents for a property or area.', { address: 'the property' }),
  tool('pets', 'Advice on animal health and a finder for veterinarians.', { animal: 'kind of animal' }),
];

const names = (result: MatchResult): string[] => (result.found ? result.candidates.map((candidate) => candidate.name) : []);

let consumer: Matcher;
let starter: Matcher;
beforeAll(async () => {
  await loadLexicon();
  consumer = createMatcher(makeIndex(TOOLS));
  starter = createMatcher(await scanStarterTools());
}, 60_000);

describe('a request sharing no word with its tool, bridged by a related word', () => {
  it.each([
    ['is it going to snow in Denver', 'snow → precipit'],
    ['how cold will it get this weekend in Oslo', 'cold → temperatur'],
  ])('offers the weather tool for %s, low, saying through which word', (request, through) => {
    // the words alone find nothing that fits
    expect(consumer.explainIntent(request).found).toBe(false);
    const answer = consumer.matchIntent(request);
    expect(answer).toMatchObject({ found: true, confidence: 'low', stage: 'vector' });
    expect(names(answer)[0]).toBe('weather-report');
    if (!answer.found) return;
    expect(answer.candidates[0]!.matched).toContain(`related words (WordNet): ${through}`);
  });

  it('offers shell-exec among the starter tools for "kill the process on port 8080" (its examples say terminate)', () => {
    expect(starter.explainIntent('kill the process on port 8080').found).toBe(false);
    const answer = starter.matchIntent('kill the process on port 8080');
    expect(answer).toMatchObject({ found: true, confidence: 'low', stage: 'vector' });
    expect(names(answer)[0]).toBe('shell-exec');
  });
});

describe('requests that fit no tool', () => {
  it.each([
    'call my sister',
    'fix the leaking tap in my bathroom',
    'how do I tie a tie',
    'set my thermostat to 21 degrees',
    'back up my phone to the cloud',
    'will I need an umbrella tomorrow',
  ])('are still refused over the consumer registry: %s', (request) => {
    expect(consumer.matchIntent(request).found).toBe(false);
  });

  it.each([
    'order a pizza for tonight',
    'play some jazz music',
    'set a timer for 10 minutes',
    'translate this paragraph into Spanish',
    'who won the football match yesterday',
    'book a table at an Italian restaurant',
    "what's the exchange rate of the euro",
  ])('are still refused over the starter tools: %s', (request) => {
    expect(starter.matchIntent(request).found).toBe(false);
  });
});

describe('hldp match\'s text', () => {
  it('says the first candidate was found through related words and meaning', () => {
    const text = formatMatchResult(consumer.matchIntent('is it going to snow in Denver'));
    expect(text.split('\n')[1]).toMatch(/^weak match, by related words and meaning: /);
    expect(text).toContain('related words (WordNet): snow → precipit');
  });
});
