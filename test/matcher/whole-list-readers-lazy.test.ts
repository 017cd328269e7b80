import { afterEach, describe, expect, it } from 'vitest';
import { toolsOf, type ToolDefinition, type UsageEvent } from '../../src/core/index.js';
import { checkNames, createMatcher, createModelStage, matchWithModel, suggestExamples } from '../../src/matcher/index.js';
import { startChatCompletionsServer, type ChatCompletionsServer } from '../helpers/chat-completions-server.js';
import { builtWhole, servedFromCache } from '../helpers/lazy-index.js';
import { makeToolDefinition } from './helpers.js';

// issue #18: an index served from the scan cache makes a tool when asked for and holds it weakly; reading
// `index.tools` makes and keeps every definition (~170 MB at 100,000 tools). These readers go by name, or one tool at a time.
const TOOLS: ToolDefinition[] = [
  makeToolDefinition({ name: 'shell-exec', display: 'Shell', intent: 'run a shell command', aliases: ['bash', 'runCommand'] }),
  makeToolDefinition({ name: 'git-ops', display: 'Git', intent: 'inspect a git repository', aliases: ['git log'], examples: ['show the last commits'] }),
  makeToolDefinition({ name: 'file-read', display: 'Read', intent: 'read one file', aliases: ['cat'] }),
  makeToolDefinition({ name: 'file-write', display: 'Write', intent: 'write one file' }),
  makeToolDefinition({ name: 'weather-forecast', display: 'Weather', intent: 'forecasts for any location', aliases: ['shell weather'] }),
  ...Array.from({ length: 30 }, (_, at) => makeToolDefinition({ name: `report-${String(at).padStart(2, '0')}`, intent: `report number ${at} of the ledger` })),
];

describe('near names of an unknown tool, over an index whose tools are made when read', () => {
  it.each(['shel-exec', 'run-command', 'git', 'file', 'Bash', 'report-1', 'nothing-like-it', 'weather shell'])('are those of the index built whole for %s, the tools made kept only the few named', (name) => {
    const { index, kept } = servedFromCache(TOOLS);
    const lazy = createMatcher(index).lookup(name, {});
    expect(lazy).toEqual(createMatcher(builtWhole(TOOLS)).lookup(name, {}));
    // only the near names' displays are read from their tools
    expect(kept.length).toBeLessThanOrEqual(3);
    if (!lazy.found) expect([...kept].sort()).toEqual(lazy.near.map((near) => near.name).filter((near) => kept.includes(near)).sort());
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });
});

describe('the model stage, over an index whose tools are made when read', () => {
  const servers: ChatCompletionsServer[] = [];
  afterEach(async () => {
    while (servers.length) await servers.pop()!.close();
  });

  it('lists the same registry for the model, making kept only the tools listed', async () => {
    const prompts: string[] = [];
    for (const whole of [true, false]) {
      const server = await startChatCompletionsServer(() => '{"tools": ["report-07"]}');
      servers.push(server);
      const { index, kept } = servedFromCache(TOOLS);
      // the search index reads each tool once by position: what the model stage reads is counted after it
      const matcher = createMatcher(whole ? builtWhole(TOOLS) : index).prepare();
      const before = kept.length;
      const stage = createModelStage({ url: server.url, model: 'tiny-model', timeoutMs: 2_000, budgetChars: 200 });
      const result = await matchWithModel(matcher, stage, 'понадобится ли завтра зонт в Москве');
      expect(result).toMatchObject({ found: true, stage: 'model', candidates: [{ name: 'report-07' }] });
      prompts.push(server.requests[0]!.prompt);
      if (!whole) {
        expect(prompts[1]).toBe(prompts[0]);
        expect(prompts[0]).toMatch(/\n\(\d+ more tools not listed\)/);
        // what the budget of 200 characters lists, and the tools the lexical stage and the answer read
        expect(kept.length - before).toBeLessThan(TOOLS.length / 2);
        expect(Array.isArray(toolsOf(index))).toBe(false);
      }
    }
  });

  it.each([
    ['{"tools": ["SHELL-EXEC", "bash", "no-such"]}', 3],
    ['Try git-ops. Or file-read.', 3],
    ['{"tools": ["Report-07", "cat"]}', 1],
  ])('checks the names of %s as over the index built whole, without making the index whole', (content, limit) => {
    const { index, kept } = servedFromCache(TOOLS);
    expect(checkNames(content, index, limit)).toEqual(checkNames(content, builtWhole(TOOLS), limit));
    expect(kept.length).toBeLessThanOrEqual(3);
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });
});

describe('suggested examples, over an index whose tools are made when read', () => {
  it('are those of the index built whole, made from the tools called alone', () => {
    const at = (minutes: number): string => new Date(Date.parse('2026-12-01T10:00:00Z') + minutes * 60_000).toISOString();
    const events: UsageEvent[] = [
      { kind: 'match', session: 'a', at: at(1), commit: 'c1', intent: 'who wrote this code', tools: [], outcome: 'none' },
      { kind: 'call', session: 'a', at: at(2), commit: 'c1', tool: 'git-ops' },
      { kind: 'match', session: 'b', at: at(3), commit: 'c1', intent: 'print it', tools: ['file-write'], outcome: 'low' },
      { kind: 'call', session: 'b', at: at(4), commit: 'c1', tool: 'file-read' },
    ];
    const { index, kept, made } = servedFromCache(TOOLS);
    const suggestions = suggestExamples(events, index);
    expect(suggestions).toEqual(suggestExamples(events, builtWhole(TOOLS)));
    expect(suggestions.map((suggestion) => suggestion.tool)).toEqual(['file-read', 'git-ops']);
    expect(made()).toBe(2);
    expect(kept.length).toBeLessThanOrEqual(2);
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });
});
