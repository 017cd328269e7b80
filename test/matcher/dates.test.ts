import { describe, expect, it } from 'vitest';
import { dateParameters, requestDates } from '../../src/matcher/dates.js';
import { createMatcher, FITTED_RANKING } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

function withParameters(name: string, intent: string, properties: Record<string, unknown>) {
  return makeToolDefinition({
    name,
    intent,
    params_schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  });
}

const CITY = { type: 'string', description: 'the city' };
// two weather tools with the same words; only one can be asked about a given day (BFCL's `get_current_weather` beside
// `Weather_1_GetWeather`); the words and their meaning alone put the one without it first
const TOOLS = [
  withParameters('weather-current', 'the weather in a city', { city: CITY, unit: { type: 'string', description: 'celsius or fahrenheit' } }),
  withParameters('weather-daily', 'the weather in a city', { city: CITY, date: { type: 'string', description: 'YYYY-MM-DD' } }),
  withParameters('calendar-add', 'put a meeting in the calendar', { title: { type: 'string' }, start_date: { type: 'string' } }),
];

function first(matcher: ReturnType<typeof createMatcher>, request: string): string | undefined {
  const result = matcher.matchIntent(request);
  return result.found ? result.candidates[0]?.name : undefined;
}

describe('matchIntent over tools with the same words, when the request gives a date', () => {
  const matcher = createMatcher(makeIndex(TOOLS));

  it('returns first the tool with a parameter to take the date', () => {
    expect(first(matcher, 'What will the weather be in Fremont on March 1st 2023?')).toBe('weather-daily');
    expect(first(matcher, 'weather in Fremont, 2023-03-01')).toBe('weather-daily');
    expect(first(matcher, 'Fremont 2023年3月1日的天气 weather')).toBe('weather-daily');
    // the words alone, as before
    expect(first(matcher.reconfigure({ ranking: { ...FITTED_RANKING, dates: 0 } }), 'What will the weather be in Fremont on March 1st 2023?')).toBe('weather-current');
  });

  it('keeps the order of the words when the request gives no date', () => {
    expect(first(matcher, 'What is the weather in Fremont now?')).toBe('weather-current');
  });

  it('never offers a tool the words did not find because it takes a date', () => {
    // (the words' own first stage: the hybrid one may bring calendar-add up by meaning, never by its date parameter)
    const explained = matcher.reconfigure({ ranking: { ...FITTED_RANKING, meaningDepth: 0 } }).explainIntent('What will the weather be in Fremont on March 1st 2023?');
    expect(explained.ranked.map((entry) => entry.tool.name)).not.toContain('calendar-add');
    const hybrid = matcher.explainIntent('What will the weather be in Fremont on March 1st 2023?').ranked.find((entry) => entry.tool.name === 'calendar-add');
    if (hybrid !== undefined) expect(hybrid.features.matchedWords).toBe(0);
  });

  it('decides found or not as the words do: a date alone is not a match', () => {
    expect(matcher.matchIntent('on March 1st 2023').found).toBe(false);
  });
});

describe('requestDates', () => {
  it.each([
    ['What will the weather be in Fremont on March 1st 2023?', 1],
    ['hours of The British Museum this weekend, Jun.20,2023', 1],
    ['the weather on the 11th of march 2023', 1],
    ['book a house from 04/23/2023 to 04/27/2023', 2],
    ['today is 2023.10.1', 1],
    ['a housekeeper 20/3/2024 at 9:00', 1],
    ['2023年5月1日的天气', 1],
    ['5月1日的天气', 1],
    ['May I have 5 apples?', 0],
    ['install version 1.2.3 of left-pad', 0],
    ['a = 3, b = -11, c = -4', 0],
  ])('%s: %i', (text, count) => {
    expect(requestDates(text)).toBe(count);
  });
});

describe('dateParameters', () => {
  it('counts the text parameters named for a date, a day or a time, or of a date format', () => {
    const tool = withParameters('x', 'x', {
      date: { type: 'string' },
      check_in_day: { type: 'string' },
      when: { type: 'string', format: 'date-time' },
      days: { type: 'integer' },
      city: { type: 'string' },
    });
    expect(dateParameters(tool)).toBe(3);
  });

  it('counts none for a tool without parameters', () => {
    expect(dateParameters(makeToolDefinition())).toBe(0);
  });
});
