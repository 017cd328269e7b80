// Issue #11 (hybrid22): where the words answer found: false with a near miss (a tool has a word of the request, too
// weakly for the words to say it fits), the words' first near miss is offered — low, stage "vector", the ranking's
// others beside it — when it is also the tool nearest the request in meaning and the two together are unlikely by
// chance (`meaningAgrees`: Fisher's combination of Grubbs' p-value and 1/n, at the vector stage's level). On main such a
// translated request was found: false with the right tool named only among `near`. Requests that fit no tool stay refused.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult, ToolDefinition } from '../../src/core/index.js';
import { createMatcher, loadLexicon, type Matcher } from '../../src/matcher/index.js';
import { MAX_HYBRID_TOOLS } from '../../src/matcher/rank.js';
import { grubbsCritical, grubbsPValue, meaningAgrees } from '../../src/matcher/vector-stage.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

type Params = Record<string, { type: string; required: boolean; description: string }>;
function tool(name: string, intent: string, params: Params): ToolDefinition {
  const properties = Object.fromEntries(Object.entries(params).map(([key, { type, description }]) => [key, { type, description }]));
  const required = Object.entries(params).filter(([, { required }]) => required).map(([key]) => key);
  return makeToolDefinition({ name, display: name, intent, params_schema: { type: 'object', properties, required, additionalProperties: false } });
}

// twelve plugin-style tools (bench/match/data/plugin-registry.json's definitions), English only
const TOOLS = [
  tool('recipe-finder', 'Plugin for discovering recipes. Search a large collection of cooking recipes by ingredients, cuisine or dietary restriction and get step-by-step instructions.', { query: { type: 'string', required: true, description: 'dish name or ingredients' }, diet: { type: 'string', required: false, description: 'dietary restriction such as vegan or gluten-free' }, max_minutes: { type: 'integer', required: false, description: 'longest total preparation time' } }),
  tool('flight-search', 'Search and compare airline tickets between airports on given dates, with fares from many carriers.', { origin: { type: 'string', required: true, description: 'departure airport or city' }, destination: { type: 'string', required: true, description: 'arrival airport or city' }, date: { type: 'string', required: true, description: 'departure date' }, passengers: { type: 'integer', required: false, description: 'number of travellers' } }),
  tool('hotel-booking', 'Find accommodation and reserve rooms in hotels, hostels and apartments worldwide.', { city: { type: 'string', required: true, description: 'where to stay' }, check_in: { type: 'string', required: true, description: 'arrival date' }, nights: { type: 'integer', required: true, description: 'length of stay' }, guests: { type: 'integer', required: false, description: 'number of guests' } }),
  tool('weather-forecast', 'Current conditions and multi-day forecasts for any location: temperature, precipitation and wind.', { location: { type: 'string', required: true, description: 'city or coordinates' }, days: { type: 'integer', required: false, description: 'days ahead to forecast' } }),
  tool('currency-converter', 'Convert amounts between currencies using live exchange rates.', { amount: { type: 'number', required: true, description: 'how much money' }, from_currency: { type: 'string', required: true, description: 'ISO code of the source currency' }, to_currency: { type: 'string', required: true, description: 'ISO code of the target currency' } }),
  tool('stock-quotes', 'Real-time and historical prices for stocks, ETFs and indices, with basic company fundamentals.', { symbol: { type: 'string', required: true, description: 'ticker symbol' }, range: { type: 'string', required: false, description: 'period such as 1d, 5d, 1y' } }),
  tool('music-player', 'Create playlists and play songs, albums and artists on your connected speakers.', { query: { type: 'string', required: true, description: 'song, album, artist or mood' }, device: { type: 'string', required: false, description: 'speaker to play on' } }),
  tool('calendar-manager', 'Create, move and cancel events and reminders in your calendar.', { title: { type: 'string', required: true, description: 'event name' }, start: { type: 'string', required: true, description: 'date and time' }, duration_minutes: { type: 'integer', required: false, description: 'length' } }),
  tool('ride-hailing', 'Request a taxi or rideshare to a destination and see price estimates.', { pickup: { type: 'string', required: true, description: 'start address' }, dropoff: { type: 'string', required: true, description: 'destination address' } }),
  tool('event-tickets', 'Find concerts, theatre and sports events and buy tickets.', { city: { type: 'string', required: true, description: 'where' }, keyword: { type: 'string', required: false, description: 'artist, show or team' }, date: { type: 'string', required: false, description: 'when' } }),
  tool('pet-care', 'Advice on pet health, nutrition and training, and a finder for nearby veterinarians.', { animal: { type: 'string', required: true, description: 'kind of pet' }, question: { type: 'string', required: false, description: 'the concern' } }),
  tool('travel-guide', 'Attractions, itineraries and local tips for cities around the world.', { destination: { type: 'string', required: true, description: 'city or country' }, days: { type: 'integer', required: false, description: 'length of the visit' } }),
];
const NAMES = new Set(TOOLS.map((entry) => entry.name));

// the cheapest flight ticket from Boston to Denver next Friday (机票: ticket, in flight-search and event-tickets)
const FLIGHT = '下周五从波士顿飞丹佛最便宜的机票';
// play some light piano music (曲: a piece of music, in music-player)
const PIANO = '放点轻松的钢琴曲';
// what to cook tonight with chicken and rice (菜: dish, in recipe-finder's parameters)
const DINNER = '今晚用鸡肉和米饭能做什么菜';
// requests no tool fits, with near misses (turn on the living-room light; set the air conditioning to 21 degrees; call
// my younger sister) or none
const NO_TOOL = ['打开客厅的灯', '把空调调到21度', '给我妹妹打个电话', 'call my sister', 'order a pizza for tonight'];

const names = (result: MatchResult): string[] => (result.found ? result.candidates.map((candidate) => candidate.name) : []);

let matcher: Matcher;
beforeAll(async () => {
  // the Chinese requests' words are matched by their English senses: read the dictionary first
  await loadLexicon();
  matcher = createMatcher(makeIndex(TOOLS));
}, 60_000);

describe('the hybrid answer: the words\' first near miss, when meaning agrees', () => {
  it('offers a Chinese request\'s tool, low, first, where the words alone said found: false', () => {
    // the words alone: nothing fits, flight-search only a near miss
    expect(matcher.explainIntent(FLIGHT).found).toBe(false);
    const answer = matcher.matchIntent(FLIGHT);
    expect(answer).toMatchObject({ found: true, confidence: 'low', stage: 'vector' });
    expect(names(answer)[0]).toBe('flight-search');
    expect(names(answer).length).toBeLessThanOrEqual(3);
    expect(names(matcher.matchIntent(PIANO))[0]).toBe('music-player');
    expect(names(matcher.matchIntent(DINNER))[0]).toBe('recipe-finder');
    expect(matcher.matchIntent(PIANO)).toMatchObject({ found: true, confidence: 'low' });
    // never high, and one candidate when one is asked for
    expect(matcher.matchIntent(FLIGHT, { limit: 1 })).toMatchObject({ confidence: 'low', candidates: [{ name: 'flight-search' }] });
  });

  it.each(NO_TOOL)('still refuses %s, which fits no tool', (request) => {
    expect(matcher.matchIntent(request)).toMatchObject({ found: false });
  });

  it('offers only tools of the registry: what meaning brought up says its cosine, never an invented name', () => {
    for (const request of [FLIGHT, PIANO, DINNER, ...NO_TOOL]) {
      const answer = matcher.matchIntent(request);
      for (const candidate of answer.found ? answer.candidates : []) {
        expect(NAMES.has(candidate.name)).toBe(true);
        expect(candidate.matched.length).toBeGreaterThan(0);
      }
    }
    expect(matcher.matchIntent(FLIGHT)).toMatchObject({ candidates: expect.arrayContaining([expect.objectContaining({ matched: [expect.stringMatching(/^meaning: cosine 0\.\d+$/)] })]) });
  });

  it('does not run past the hybrid stage\'s bound on the registry\'s size: the words\' found: false stands', () => {
    expect(MAX_HYBRID_TOOLS).toBeGreaterThanOrEqual(TOOLS.length);
    // a vector stage bounded below the registry's size: no cosines are asked, no agreement offered
    expect(createMatcher(makeIndex(TOOLS), { vectorStageTools: TOOLS.length - 1 }).matchIntent(FLIGHT)).toMatchObject({ found: false });
  });
});

describe('meaningAgrees', () => {
  it('asks the nearest to be the words\' one, and the two together to pass at the stage\'s level', () => {
    // Grubbs' p-value is the level at its own critical value
    for (const n of [5, 12, 32]) expect(grubbsPValue(grubbsCritical(n, 0.2), n)).toBeCloseTo(0.2, 3);
    // one tool far nearer than eleven alike: it agrees only when it is the words' one
    const cosines = Float64Array.from([0.9, 0.1, 0.12, 0.11, 0.09, 0.1, 0.13, 0.1, 0.08, 0.11, 0.1, 0.12]);
    expect(meaningAgrees(cosines, 0)).toBe(true);
    expect(meaningAgrees(cosines, 3)).toBe(false);
    // twelve alike: the nearest is nearly chance, 1/12 alone does not pass
    const alike = Float64Array.from([0.31, 0.3, 0.29, 0.3, 0.31, 0.3, 0.29, 0.3, 0.305, 0.3, 0.29, 0.3]);
    expect(meaningAgrees(alike, 0)).toBe(false);
  });
});
