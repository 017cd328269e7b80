import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { firstStage, type WeightedTerm } from '../../src/matcher/first-stage.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndexSteps } from '../../src/matcher/update-search-index.js';
import { makeToolDefinition } from './helpers.js';

const WORDS = ['read', 'file', 'weather', 'forecast', 'convert', 'currency', 'git', 'commit', 'log', 'search', 'image', 'resize', 'send', 'mail', 'calendar', 'event'];

// enough tools, each with enough words, that copying their entries takes many slices
function makeTools(count: number, tag: string): ToolDefinition[] {
  return Array.from({ length: count }, (_, at) => {
    const words = Array.from({ length: 12 }, (_, offset) => WORDS[(at * 7 + offset * 3) % WORDS.length]!);
    return makeToolDefinition({ name: `${tag}-${at}`, intent: `${words.join(' ')} word${at} ${tag}`, why: `${words.slice(4).join(' ')} number${at % 97}`, examples: [words.slice(2, 8).join(' ')] });
  });
}

const REQUESTS: WeightedTerm[][] = [['read', 'file'], ['weather', 'forecast', 'number5'], ['git', 'commit', 'log'], ['word1234', 'mail'], ['added'], ['image', 'resize', 'number96']].map((terms) =>
  terms.map((term) => ({ term, weight: 1 })),
);

const answers = (index: SearchIndex) => REQUESTS.map((request) => firstStage(index, { ...FITTED_RANKING, depth: 20 }, request));

describe('updateSearchIndexSteps', () => {
  describe('when the update leaves the postings due a compaction', () => {
    it('copies the kept entries across several steps while the previous version answers as before, then answers as a fresh build', () => {
      const tools = makeTools(6000, 'old');
      const previous = buildSearchIndex(tools);
      const before = answers(previous);
      // two thirds removed (dead slots outnumber the live ones), new tools in between
      const added = makeTools(300, 'added');
      const next = tools.filter((_, at) => at % 3 === 0).flatMap((tool, at) => (at % 7 === 0 ? [added[at / 7]!, tool] : [tool]));
      const steps = updateSearchIndexSteps(previous, next);
      let stops = 0;
      let step = steps.next();
      for (; !step.done; step = steps.next()) {
        stops += 1;
        // every stop leaves the previous version whole: a request meanwhile gets what it got before
        if (stops % 5 === 1) expect(answers(previous)).toEqual(before);
      }
      const updated = step.value;
      // without a compaction an update of 6,000 tools stops once (every 4,000 tools read)
      expect(stops).toBeGreaterThan(5);
      expect(updated.records.map((record) => record.id)).toEqual(next.map((_, at) => at));
      expect(answers(updated)).toEqual(answers(buildSearchIndex(next)));
    });
  });
});
