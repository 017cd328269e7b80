import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toolsOf, withLazyTools, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';
import { createMatcher, MAX_LIMIT, searchIndexFiles } from '../../src/matcher/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { makeTempDir } from '../helpers/git.js';
import { makeToolDefinition, scanStarterTools } from './helpers.js';

const INTENTS = ['查看最近的提交记录', 'read the file README.md', 'run ls -la on the server', 'what is the weather in Paris', 'tell me a joke'];

// the index as a scan cache serves it: each tool made when asked for, a fresh copy each time (a line parsed again)
function madeWhenRead(index: ToolIndex): { lazy: ToolIndex; made: number[] } {
  const made: number[] = [];
  const { tools, ...fields } = index;
  const lazy = withLazyTools(fields, tools.map((tool) => tool.name), (position) => {
    made.push(position);
    return structuredClone(tools[position]!);
  });
  return { lazy, made };
}

describe('the matcher over an index whose tools are made when read', () => {
  let starter: ToolIndex;
  let dir: Awaited<ReturnType<typeof makeTempDir>> | undefined;
  beforeAll(async () => {
    const scanned = await scanStarterTools();
    const extra = [
      makeToolDefinition({ name: 'weather-now', intent: 'get the current weather for a city', aliases: ['weather', 'current weather'] }),
      makeToolDefinition({ name: 'joke-tell', intent: 'tell a joke', examples: ['tell me a joke about cats'] }),
    ];
    starter = { ...scanned, tools: [...scanned.tools, ...extra].sort((a, b) => (a.name < b.name ? -1 : 1)) };
  });
  afterEach(async () => {
    await dir?.cleanup();
    dir = undefined;
  });

  describe('when its search index is kept on disk', () => {
    it('restores it without making a tool, and answers as a matcher over the tools held whole', async () => {
      dir = await makeTempDir();
      const files = searchIndexFiles(dir.path);
      const whole = createMatcher(starter, { searchFiles: files }).prepare();
      const { lazy, made } = madeWhenRead(starter);
      expect(files.read(lazy)).toBeDefined();
      expect(made).toEqual([]);
      const matcher = createMatcher(lazy, { searchFiles: files });
      for (const intent of INTENTS) expect(matcher.matchIntent(intent, { limit: MAX_LIMIT })).toEqual(whole.matchIntent(intent, { limit: MAX_LIMIT }));
      expect(matcher.lookup('current weather', {})).toEqual(whole.lookup('current weather', {}));
    });
  });

  describe('when a later version is searched', () => {
    it('asks the earlier version for its tools by position, and keeps the analysis of those the later one holds as the very objects', () => {
      const { tools, ...fields } = starter;
      // made when read, the same object each time (as a scan cache's entry is while the scanner holds it)
      const lazy = withLazyTools(fields, tools.map((tool) => tool.name), (position) => {
        return tools[position]!;
      });
      const first = buildSearchIndex(toolsOf(lazy));
      const changed = { ...tools[0]!, intent: 'does something else' };
      const next = updateSearchIndex(first, [changed, ...tools.slice(1)]);
      expect(next.records.at(0)).not.toBe(first.records.at(0));
      for (let at = 1; at < tools.length; at++) expect(next.records.at(at)).toBe(first.records.at(at));
      expect(next.tools.at(0)).toBe(changed);
    });

    it('analyses again a tool whose copy is not the same object', () => {
      const tools: ToolDefinition[] = [makeToolDefinition({ name: 'alpha', intent: 'do alpha' }), makeToolDefinition({ name: 'beta', intent: 'do beta' })];
      const first = buildSearchIndex(tools);
      const next = updateSearchIndex(first, [tools[0]!, { ...tools[1]! }]);
      expect(next.records.at(0)).toBe(first.records.at(0));
      expect(next.records.at(1)).not.toBe(first.records.at(1));
    });
  });
});
