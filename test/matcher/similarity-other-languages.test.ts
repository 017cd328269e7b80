import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import { toolsOf } from '../../src/core/index.js';
import { calibrate } from '../../src/matcher/calibration.js';
import { createMatcher, FITTED_DECISION, FITTED_RANKING, loadLexicon, type Matcher } from '../../src/matcher/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { scanStarterTools } from './helpers.js';

// Issue #11: the re-rank by meaning built a request's vector from the words that have an English vector of their own.
// In a Spanish request that is an English word left in it ("city"), and it alone decided what the request meant, while
// the borrowed word the matcher had bridged ("temperatura" → temperature) counted for nothing; a Chinese request had no
// vector at all. Now a word without a vector stands in it by the English sense the matcher took it for, and a request
// in another language counts its cosine for as much of its words as the vector stands for.

const WORDS_ONLY = { ...FITTED_RANKING, similarity: 0 };

// Both tools have "city"; only what the other words mean tells them apart.
const TOOLS = {
  'tools/city-weather/TOOL.hdlp': makeToolYaml('city-weather', { display: 'city weather', intent: 'the rain, snow, wind and temperature expected in a city' }),
  'tools/city-population/TOOL.hdlp': makeToolYaml('city-population', { display: 'city population', intent: 'how many people live in a city' }),
  'tools/umbrella-shop/TOOL.hdlp': makeToolYaml('umbrella-shop', { display: 'umbrella shop', intent: 'sell umbrellas and raincoats' }),
};

function names(result: MatchResult): string[] {
  return result.found ? result.candidates.map((candidate) => candidate.name) : [];
}

let temp: { path: string; cleanup: () => Promise<void> };
let matcher: Matcher;
let wordsOnly: Matcher;

beforeAll(async () => {
  temp = await makeTempDir('hldp-similarity-languages-');
  const repo = await initRepository(join(temp.path, 'registry'));
  await commitFiles(repo, TOOLS);
  const index = await new Scanner({ repo, cacheDir: join(temp.path, 'cache') }).scan();
  await loadLexicon();
  matcher = createMatcher(index);
  wordsOnly = matcher.reconfigure({ ranking: WORDS_ONLY });
});

afterAll(async () => {
  await temp.cleanup();
});

// what meaning added to each tool's score: its score less the score of the words alone
function gainsByMeaning(request: string): Map<string, number> {
  const alone = new Map(wordsOnly.explainIntent(request).ranked.map((entry) => [entry.tool.name, entry.score]));
  return new Map(matcher.explainIntent(request).ranked.map((entry) => [entry.tool.name, entry.score - alone.get(entry.tool.name)!]));
}

describe('the re-rank by meaning of requests in other languages than English', () => {
  describe('when a Spanish request has one English word and a borrowed word the registry has', () => {
    const request = '¿qué temperatura hará mañana en la city?';

    it('moves up the tool the borrowed word names, not the one nearest the English word', () => {
      const gains = gainsByMeaning(request);
      // on the old code "city" alone made the vector: city-population gained 2.55, city-weather 1.49
      expect(gains.get('city-weather')!).toBeGreaterThan(gains.get('city-population')!);
      expect(names(matcher.matchIntent(request))[0]).toBe('city-weather');
    });
  });

  describe('when a Chinese request has no English word', () => {
    // 明天 这个 城市 会 刮风 吗: will the wind blow in this city tomorrow
    const request = '明天这个城市会刮风吗';

    it('is ranked by the meaning of its words\' dictionary senses too', () => {
      // the words alone put the population tool first (both have 城市's sense "city"; 刮风 "to be windy" is no word of either)
      expect(names(wordsOnly.matchIntent(request))[0]).toBe('city-population');
      // on the old code too: a request with no English word in the vector table had no vector
      expect(names(matcher.matchIntent(request))[0]).toBe('city-weather');
    });
  });

  describe('when the request is in English', () => {
    it('keeps the whole of its cosine', () => {
      const gains = gainsByMeaning('what temperature will it be in the city tomorrow');
      expect(gains.get('city-weather')!).toBeGreaterThan(gains.get('city-population')!);
      expect(names(matcher.matchIntent('will a storm hit the city tomorrow'))[0]).toBe('city-weather');
    });
  });

  describe('whatever the language', () => {
    it.each([['¿qué temperatura hará mañana en la city?'], ['明天这个城市会刮风吗'], ['Wie wird das Wetter morgen in der city?'], ['погода в city завтра']])(
      'ranks the tools the words alone rank (and those meaning brings up, with no word of the request), and decides alike for %s',
      (request) => {
        const near = matcher.explainIntent(request);
        const alone = wordsOnly.explainIntent(request);
        const aloneNames = alone.ranked.map((entry) => entry.tool.name);
        for (const name of aloneNames) expect(near.ranked.map((entry) => entry.tool.name)).toContain(name);
        // the hybrid first stage (rank19): at most meaningDepth more, none with a word of the request
        const added = near.ranked.filter((entry) => !aloneNames.includes(entry.tool.name));
        expect(added.length).toBeLessThanOrEqual(FITTED_RANKING.meaningDepth);
        for (const entry of added) expect(entry.features.matchedWords).toBe(0);
        expect([near.found, near.evidence]).toEqual([alone.found, alone.evidence]);
      },
    );
  });
});

describe('the confidence cut of a registry whose examples are in Chinese too', () => {
  describe('when its Chinese examples are ranked by their senses\' meaning', () => {
    it('is the cut the words alone draw: the vectors move no registry\'s line between confident and weak answers', async () => {
      const index = buildSearchIndex(toolsOf(await scanStarterTools()));
      const cut = calibrate(index, FITTED_RANKING, FITTED_DECISION);
      expect(cut.probes).toBeGreaterThan(0);
      // with the senses' vectors and the other tool taken by the full score, the starter tools' cut was 0.616, not 0.487
      expect(cut).toEqual(calibrate(index, WORDS_ONLY, FITTED_DECISION));
    });
  });
});
