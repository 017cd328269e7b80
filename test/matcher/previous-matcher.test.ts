import { beforeAll, describe, expect, it } from 'vitest';
import type { ToolDefinition, ToolIndex } from '../../src/core/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMatcher, MAX_LIMIT, createMatcherLettingGo, searchIndexFiles, type Matcher, loadLexicon } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition, scanStarterTools } from './helpers.js';

const INTENTS = [
  '查看最近的提交记录',
  '读取配置文件',
  'покажи последние коммиты',
  'read the file README.md',
  'run ls -la on the server',
  'send a GET request to /v1/status',
  'what is the weather in Paris',
  'get the weather forecast for Tokyo',
  'convert 100 USD to EUR',
  'translate this sentence into French',
  'book a flight to Tokyo',
  'resize the image to 200 pixels',
  'tell me a joke',
];

const EXTRA: Array<Partial<ToolDefinition>> = [
  { name: 'weather-now', intent: 'get the current weather for a city', aliases: ['weather'] },
  { name: 'weather-forecast', intent: 'get the weather forecast for the next days in a city' },
  { name: 'currency-convert', intent: 'convert an amount of money from one currency to another' },
  { name: 'image-resize', intent: 'resize an image to a given width and height in pixels' },
  { name: 'text-translate', intent: 'translate a text into another language', examples: ['translate "hello" into German'] },
  { name: 'flight-search', intent: 'search flights between two airports on a date' },
];

/** Everything an answer shows, for comparing two matchers. */
function answers(matcher: Matcher): unknown[] {
  return INTENTS.map((intent) => {
    const { found, ranked } = matcher.explainIntent(intent);
    const shown = ranked.map(({ tool, score, probability, matched }) => ({ name: tool.name, score, probability, matched }));
    return { intent, found, shown, result: matcher.matchIntent(intent, { limit: MAX_LIMIT }) };
  });
}

function withTools(index: ToolIndex, tools: ToolDefinition[]): ToolIndex {
  return { ...makeIndex(tools), commit: `${index.commit}+` };
}

describe('createMatcher with a previous matcher', () => {
  let starter: ToolIndex;
  let extra: ToolDefinition[];
  beforeAll(async () => {
    // the starter tools' examples have Chinese words: two matchers compared at different moments would differ in whether
    // the dictionary had been read (a provisional calibration, then a final one); read it first
    await loadLexicon();
    starter = await scanStarterTools();
    extra = EXTRA.map((overrides) => makeToolDefinition(overrides));
  });

  describe('when tools are added, changed and removed', () => {
    it('returns exactly what a matcher built afresh returns, at every step', () => {
      let index = withTools(starter, [...starter.tools, ...extra.slice(0, 3)]);
      let matcher = createMatcher(index);
      const steps: Array<(tools: ToolDefinition[]) => ToolDefinition[]> = [
        (tools) => [...tools, ...extra.slice(3)],
        (tools) => tools.map((tool) => (tool.name === 'weather-now' ? { ...tool, intent: 'show the temperature and rain right now' } : tool)),
        (tools) => tools.filter((tool) => tool.name !== 'file-read' && tool.name !== 'currency-convert'),
        (tools) => [...tools.filter((tool) => tool.name !== 'image-resize'), makeToolDefinition({ name: 'image-crop', intent: 'crop an image' })],
        (tools) => tools,
      ];
      for (const step of steps) {
        index = withTools(index, step(index.tools));
        matcher = createMatcher(index, { previous: matcher });
        expect(answers(matcher)).toEqual(answers(createMatcher(index)));
      }
    });

    it('returns exactly what a matcher built afresh returns when made a slice at a time (a server rescan), with the previous one still answering', async () => {
      let index = withTools(starter, [...starter.tools, ...extra.slice(0, 3)]);
      let matcher = createMatcher(index).prepare();
      const steps: Array<(tools: ToolDefinition[]) => ToolDefinition[]> = [
        (tools) => [...tools, ...extra.slice(3)],
        (tools) => tools.map((tool) => (tool.name === 'weather-now' ? { ...tool, intent: 'show the temperature and rain right now', aliases: ['forecast now'] } : tool)),
        (tools) => tools.filter((tool) => tool.name !== 'file-read' && tool.name !== 'currency-convert'),
        (tools) => tools,
      ];
      for (const step of steps) {
        const before = index;
        const previous = matcher;
        index = withTools(index, step(index.tools));
        const making = createMatcherLettingGo(index, { previous });
        // meanwhile requests are answered by the previous matcher, over its own index
        expect(answers(previous)).toEqual(answers(createMatcher(before)));
        matcher = await making;
        expect(answers(matcher)).toEqual(answers(createMatcher(index)));
        expect(matcher.lookup('forecast now', {}).found).toBe(index.tools.some((tool) => tool.aliases.includes('forecast now')));
      }
    });

    it('returns the same answers when the previous matcher never built its search index', () => {
      const lazy = createMatcher(withTools(starter, starter.tools));
      expect(lazy.lookup('git-ops', {})).toMatchObject({ found: true });
      const index = withTools(starter, [...starter.tools, ...extra]);
      const second = createMatcher(index, { previous: lazy });
      const third = createMatcher(withTools(index, [...index.tools, makeToolDefinition({ name: 'image-crop', intent: 'crop an image' })]), { previous: second });
      expect(answers(second)).toEqual(answers(createMatcher(index)));
      expect(answers(third)).toEqual(answers(createMatcher(withTools(index, [...index.tools, makeToolDefinition({ name: 'image-crop', intent: 'crop an image' })]))));
    });

    it('returns the same answers when the previous index had no tools', () => {
      const empty = createMatcher(makeIndex([])).prepare();
      const index = withTools(starter, [...starter.tools, ...extra]);
      expect(answers(createMatcher(index, { previous: empty }))).toEqual(answers(createMatcher(index)));
    });
  });

  describe('when the previous matcher is still used after the update', () => {
    it('returns lookups of its own index', () => {
      const before = createMatcher(withTools(starter, [...starter.tools, ...extra]));
      const changed = withTools(starter, starter.tools.filter((tool) => tool.name !== 'git-ops'));
      const after = createMatcher(changed, { previous: before });
      expect(before.lookup('git-ops', {})).toMatchObject({ found: true, valid: true });
      expect(before.lookup('weather', {})).toMatchObject({ found: true, tool: { name: 'weather-now' } });
      expect(after.lookup('git-ops', {})).toMatchObject({ found: false, code: 'TOOL_NOT_FOUND' });
      expect(after.lookup('file-read', {})).toMatchObject({ found: true, valid: false, code: 'INVALID_PARAMS' });
    });

    it('returns intent answers of its own index, as a matcher built afresh over it would', () => {
      const oldIndex = withTools(starter, [...starter.tools, ...extra]);
      // prepared: the update then changes the search structures the two share
      const before = createMatcher(oldIndex).prepare();
      createMatcher(withTools(oldIndex, extra.slice(1)), { previous: before });
      expect(answers(before)).toEqual(answers(createMatcher(oldIndex)));
    });

    it('returns correct answers when it is the previous matcher of a second update', () => {
      const oldIndex = withTools(starter, [...starter.tools, ...extra]);
      const before = createMatcher(oldIndex).prepare();
      createMatcher(withTools(oldIndex, starter.tools), { previous: before });
      const second = withTools(oldIndex, [...starter.tools, ...extra.slice(2)]);
      expect(answers(createMatcher(second, { previous: before }))).toEqual(answers(createMatcher(second)));
    });
  });

  describe('when a tool changes its params schema', () => {
    const schema = (property: string, type: string, id?: string) => ({
      ...(id === undefined ? {} : { $id: id }),
      type: 'object',
      properties: { [property]: { type } },
      required: [property],
      additionalProperties: false,
    });

    it.each([
      ['without an $id', undefined],
      ['with the same $id before and after', 'https://example.com/convert.json'],
    ])('returns lookups validated against the new schema, and the old one for the previous matcher (%s)', (_case, id) => {
      const before = makeToolDefinition({ name: 'convert', params_schema: schema('amount', 'number', id) });
      const kept = makeToolDefinition({ name: 'kept', params_schema: schema('path', 'string') });
      const previous = createMatcher(makeIndex([before, kept]));
      expect(previous.lookup('convert', { amount: 5 })).toMatchObject({ valid: true });
      expect(previous.lookup('kept', { path: 'a' })).toMatchObject({ valid: true });
      const after = { ...before, params_schema: schema('currency', 'string', id) };
      const next = createMatcher(makeIndex([after, kept]), { previous });
      expect(next.lookup('convert', { currency: 'EUR' })).toMatchObject({ valid: true });
      expect(next.lookup('convert', { amount: 5 })).toMatchObject({ valid: false, code: 'INVALID_PARAMS' });
      expect(next.lookup('kept', { path: 1 })).toMatchObject({ valid: false, code: 'INVALID_PARAMS' });
      expect(previous.lookup('convert', { amount: 5 })).toMatchObject({ valid: true });
    });
  });

  describe('when the updated matcher is reconfigured', () => {
    it('returns the answers of the same index with the other parameters', () => {
      const before = createMatcher(withTools(starter, starter.tools));
      const index = withTools(starter, [...starter.tools, ...extra]);
      const strict = { decision: { features: [], weights: [], bias: 0, threshold: 1 } };
      const after = createMatcher(index, { previous: before }).reconfigure(strict);
      expect(answers(after)).toEqual(answers(createMatcher(index, strict)));
    });
  });
});

describe('Matcher.prepareLettingGo (a server that listens before its search index is ready)', () => {
  it('answers exactly as prepare(), whether it builds the search index a slice at a time or reads the one kept on disk', async () => {
    const index = makeIndex([...(await scanStarterTools()).tools, ...EXTRA.map((overrides) => makeToolDefinition(overrides))]);
    const expected = answers(createMatcher(index).prepare());
    const dir = await mkdtemp(join(tmpdir(), 'hldp-prepare-test-'));
    try {
      const built = await createMatcher(index, { searchFiles: searchIndexFiles(dir) }).prepareLettingGo();
      expect(answers(built)).toEqual(expected);
      // the one it built was kept, and the next start reads it
      expect(searchIndexFiles(dir).read(index)).toBeDefined();
      const read = await createMatcher(index, { searchFiles: searchIndexFiles(dir) }).prepareLettingGo();
      expect(answers(read)).toEqual(expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leaves a synchronous first intent asked meanwhile standing, and answers as it does', async () => {
    const index = makeIndex(EXTRA.map((overrides) => makeToolDefinition(overrides)));
    const matcher = createMatcher(index);
    const preparing = matcher.prepareLettingGo();
    const first = matcher.matchIntent('get the weather forecast for Tokyo');
    await preparing;
    expect(matcher.matchIntent('get the weather forecast for Tokyo')).toEqual(first);
    expect(answers(matcher)).toEqual(answers(createMatcher(index).prepare()));
  });
});
