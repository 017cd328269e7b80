import { describe, expect, it, vi } from 'vitest';
import { runToEnd } from '../../src/core/index.js';
import { createMatcher, createMatcherLettingGo } from '../../src/matcher/index.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { hasToolVector, toolVectorSteps } from '../../src/matcher/similarity.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// each index a matcher makes its tools' vectors for, and how many it made (the module as it is otherwise)
const prepared = vi.hoisted(() => [] as Array<{ index: unknown; made: number }>);
vi.mock('../../src/matcher/similarity.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/matcher/similarity.js')>();
  return {
    ...original,
    toolVectorSteps: function* (index: SearchIndex) {
      const made = yield* original.toolVectorSteps(index);
      prepared.push({ index, made });
      return made;
    },
  };
});

// Issue #18: each tool's vector for the re-rank by meaning was summed the first time a request brought the tool up, so
// a server's first requests after a start paid for it (first pass p99 2.13 ms at 3,148 tools, quiet). A server makes
// them before it says matching is ready, and a rescan's successor takes the unchanged tools' over.

const TOOLS = [
  makeToolDefinition({ name: 'city-weather', intent: 'the rain, snow and wind expected in a city', examples: ['will it rain in Paris'] }),
  makeToolDefinition({ name: 'city-population', intent: 'how many people live in a city' }),
  makeToolDefinition({ name: 'umbrella-shop', intent: 'sell umbrellas and raincoats' }),
  makeToolDefinition({ name: 'only-chinese', intent: '天气预报' }),
];
const REQUESTS = ['will a storm hit the city tomorrow', 'buy a raincoat', 'how many people live in Lyon', '天气', 'xyzzy'];

const explained = (matcher: ReturnType<typeof createMatcher>): string => JSON.stringify(REQUESTS.map((request) => [matcher.explainIntent(request), matcher.matchIntent(request)]));

describe('the tools\' vectors for the re-rank by meaning', () => {
  describe('when a server prepares its matcher (prepareLettingGo)', () => {
    it('has made every tool\'s vector before the first request, and answers as a matcher that made none ahead', async () => {
      prepared.length = 0;
      const matcher = await createMatcher(makeIndex(TOOLS)).prepareLettingGo();
      const { index } = prepared[0] as { index: SearchIndex };
      expect(index.records).toHaveLength(TOOLS.length);
      for (let position = 0; position < TOOLS.length; position++) expect(hasToolVector(index, position)).toBe(true);
      expect(explained(matcher)).toBe(explained(createMatcher(makeIndex(TOOLS))));
    });
  });

  describe("when a rescan's successor is prepared (createMatcherLettingGo)", () => {
    it('makes only the changed tool\'s vector, takes the others over, and answers as a fresh matcher', async () => {
      const first = await createMatcher(makeIndex(TOOLS)).prepareLettingGo();
      const changed = TOOLS.map((tool) => (tool.name === 'umbrella-shop' ? { ...tool, intent: 'sell umbrellas, raincoats and boots' } : tool));
      prepared.length = 0;
      const successor = await createMatcherLettingGo(makeIndex(changed), { previous: first });
      expect(prepared.map(({ made }) => made)).toEqual([1]);
      const { index } = prepared[0] as { index: SearchIndex };
      for (let position = 0; position < changed.length; position++) expect(hasToolVector(index, position)).toBe(true);
      expect(explained(successor)).toBe(explained(createMatcher(makeIndex(changed))));
    });
  });

  describe('toolVectorSteps', () => {
    it('makes each tool\'s vector once per analysis, and again for a tool an update analysed anew', () => {
      const index = buildSearchIndex(TOOLS);
      expect(runToEnd(toolVectorSteps(index))).toBe(TOOLS.length);
      expect(runToEnd(toolVectorSteps(index))).toBe(0);
      const added = updateSearchIndex(index, [...TOOLS, makeToolDefinition({ name: 'wind-meter', intent: 'wind speed measured' })]);
      expect(runToEnd(toolVectorSteps(added))).toBe(1);
    });
  });
});
