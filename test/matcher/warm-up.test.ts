import { describe, expect, it, vi } from 'vitest';
import type { MatchResult, ToolDefinition } from '../../src/core/index.js';
import { calibrate } from '../../src/matcher/calibration.js';
import { createMatcher, MAX_LIMIT, FITTED_DECISION, FITTED_RANKING, lexiconSettled, type Matcher } from '../../src/matcher/index.js';
import { explainIntent, type IntentEngine } from '../../src/matcher/match-intent.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { stageSteps, warmUpSteps, warmUpTexts } from '../../src/matcher/warm-up.js';
import { makeIndex, makeToolDefinition, scanStarterTools } from './helpers.js';

// the whole requests the warm-up asks, and the first stages it runs, counted (the modules as they are otherwise)
const asked = vi.hoisted(() => ({ count: 0, texts: [] as string[], firstStages: 0 }));
vi.mock('../../src/matcher/first-stage.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/matcher/first-stage.js')>();
  return {
    ...original,
    firstStage: (...args: Parameters<typeof original.firstStage>) => {
      asked.firstStages += 1;
      return original.firstStage(...args);
    },
  };
});
vi.mock('../../src/matcher/match-intent.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/matcher/match-intent.js')>();
  return {
    ...original,
    matchIntent: (...args: Parameters<typeof original.matchIntent>) => {
      asked.count += 1;
      asked.texts.push(args[1]);
      return original.matchIntent(...args);
    },
  };
});

// Issue #18: before a server says intent matching is ready, the first matcher it prepares asks itself requests made
// of the registry's words, so that the first agents' requests do not wait for the code to be compiled. It must leave
// every answer, the calibration and the dictionary as they were.

const REQUESTS = [
  'read the file README.md',
  'run ls -la on the server',
  "show me the last 5 commits of 'brush-holder'",
  'send a GET request to https://example.com/v1/status',
  'Ask Anna about “the release” tomorrow',
  'xyzzy plugh',
  'покажи последние коммиты',
];

const TOOLS: ToolDefinition[] = [
  makeToolDefinition({ name: 'weather-now', display: 'weather now', intent: 'Get the current weather for a city. Uses a public API.', aliases: ['current weather'] }),
  makeToolDefinition({
    name: 'image-resize',
    display: 'image resize',
    intent: 'Resize an image to a given width and height',
    params_schema: { type: 'object', properties: { width: { type: 'integer' } }, required: [], additionalProperties: false },
    examples: ['make photo.png 200 pixels wide'],
  }),
];

function engineOver(tools: ToolDefinition[]): IntentEngine {
  const index = buildSearchIndex(tools);
  return { index, ranking: FITTED_RANKING, decision: FITTED_DECISION, calibration: calibrate(index, FITTED_RANKING, FITTED_DECISION) };
}

function answers(matcher: Matcher): Array<{ answer: MatchResult; explained: unknown }> {
  return REQUESTS.map((request) => ({ answer: matcher.matchIntent(request, { limit: MAX_LIMIT }), explained: matcher.explainIntent(request) }));
}

describe('warmUpTexts', () => {
  it("makes its requests of the registry's own words, the same each time: examples and intents, with values, and reversed", () => {
    const texts = [...warmUpTexts(TOOLS, 20)];
    expect(texts).toEqual([...warmUpTexts(TOOLS, 20)]);
    expect(texts).toHaveLength(20);
    // an example as it is, an intent's first sentence, and the same words with a quoted parameter, a number, a name
    expect(texts).toContain('Resize an image to a given width and height');
    expect(texts).toContain('Get the current weather for a city.');
    expect(texts.some((text) => text.includes("'width'"))).toBe(true);
    expect(texts.some((text) => text.includes('“width”'))).toBe(true);
    expect(texts.some((text) => text.includes('weather-now'))).toBe(true);
    expect(texts).toContain('teg eht tnerruc rehtaew');
    expect([...warmUpTexts([], 20)]).toEqual([]);
  });
});

describe('warmUpSteps', () => {
  it('asks one request a step, and leaves the calibration and every answer as they were', async () => {
    const index = makeIndex(TOOLS);
    const before = createMatcher(index).prepare();
    const calibration = before.explainIntent('x').calibration;
    const earlier = answers(before);

    const engine = engineOver(TOOLS);
    const steps = warmUpSteps(engine);
    let stops = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) stops += 1;
    expect(step.value).toBeGreaterThan(0);
    // a step a request, and the stages of the first and of those in other scripts
    expect(stops).toBeGreaterThan(step.value + stageSteps(engine, 'x').length);
    expect(engine.calibration).toEqual(calibration);

    expect(answers(before)).toEqual(earlier);
    expect(answers(createMatcher(index).prepare())).toEqual(earlier);
  });

  // a server's first request ran every cold path in one piece (~20-30 ms of its main thread, the stop lists read among
  // them), which a /healthz or a call by name waited for while matching was prepared
  it('asks its first request a stage at a time, letting go between them, the whole request its last stage', () => {
    const engine = engineOver(TOOLS);
    const steps = warmUpSteps(engine);
    const before = asked.count;
    let stops = 0;
    while (asked.count === before) {
      expect(steps.next().done).toBe(false);
      stops += 1;
    }
    // a step of its own that reads the word vectors' table first (issue #18), then the stages
    expect(stops).toBe(1 + stageSteps(engine, 'x').length);
    expect(stops).toBeGreaterThanOrEqual(8);
  });

  // at 100,000 generated tools, where every word's list holds every tool, a cold first stage took ~20-25 ms: the first
  // request's stages ran it five times (twice on their own, then in the ranking, the explanation and the whole request
  // asked again after them), where a request runs it once (issue #18)
  it("runs its first request's first stage no more often than its stages need: alone, in the ranking and in the whole request", () => {
    const engine = engineOver(TOOLS);
    const steps = warmUpSteps(engine);
    const before = asked.count;
    const stagesBefore = asked.firstStages;
    while (asked.count === before) expect(steps.next().done).toBe(false);
    expect(asked.firstStages - stagesBefore).toBe(3);
  });

  it('leaves out the texts with Chinese words while the Chinese-English dictionary is not read, asks Chinese only quoted, and does not start reading it', () => {
    // this file's module state is its own (vitest isolates test files): nothing has read the dictionary
    expect(lexiconSettled()).toBe(false);
    const chinese = [makeToolDefinition({ name: 'commit-log', display: '提交记录', intent: '查看最近的提交记录' })];
    expect(warmUpSteps(engineOver(chinese)).next()).toEqual({ done: true, value: 0 });
    const mixed = [...chinese, makeToolDefinition({ name: 'disk-usage', display: 'disk usage', intent: 'Check disk usage on the server' })];
    const engine = engineOver(mixed);
    const from = asked.texts.length;
    for (const step = warmUpSteps(engine); !step.next().done; );
    const texts = asked.texts.slice(from);
    expect(texts.length).toBeGreaterThan(0);
    // Chinese, as agents send it, only as a quoted value inside the request, which is not glossed (a request wrapped whole
    // in quotes is read as the request)
    const quoted = texts.filter((text) => /\p{Script=Han}/u.test(text));
    expect(quoted).toHaveLength(1);
    expect(quoted[0]).toMatch(/^\p{Script=Latin}+ “\p{Script=Han}.+”$/u);
    expect(explainIntent(engine, quoted[0]!).incomplete).toBeUndefined();
    expect(texts.some((text) => /\p{Script=Cyrillic}/u.test(text))).toBe(true);
    expect(lexiconSettled()).toBe(false);
  });

  // at 100,000 generated tools each of the registry's requests took 4-12 ms, the twentieth no less than the second:
  // V8 had optimised their loops within the first ones, and the rest of the 300 ms taught it nothing (issue #18)
  it("stops once four of the registry's last five requests each took over costlyRequestMs of CPU", () => {
    const whole = (steps: Generator<void, number, void>): number => {
      for (;;) {
        const step = steps.next();
        if (step.done) return step.value;
      }
    };
    // every request costly: the first and the four in other scripts (asked a stage at a time first), then four
    expect(whole(warmUpSteps(engineOver(TOOLS), { costlyRequestMs: -1 }))).toBe(1 + 4 + 4);
    // none costly: the warm-up goes on
    expect(whole(warmUpSteps(engineOver(TOOLS), { costlyRequestMs: Number.POSITIVE_INFINITY }))).toBeGreaterThan(1 + 4 + 4);
  });

  it("stops once a successor matcher has updated the index's shared structures", () => {
    const engine = engineOver(TOOLS);
    expect(warmUpSteps(engine).next().done).toBe(false);
    updateSearchIndex(engine.index, [...TOOLS, makeToolDefinition({ name: 'disk-usage', intent: 'Check disk usage' })]);
    expect(warmUpSteps(engine).next()).toEqual({ done: true, value: 0 });
  });
});

describe('prepareLettingGo', () => {
  it('warms the process up once and answers as a matcher prepared without it', async () => {
    const index = await scanStarterTools();
    // the starter tools have Chinese examples: both read the dictionary first
    const plain = await createMatcher(index).ready();
    const earlier = answers(plain);
    const prepared = await createMatcher(index).prepareLettingGo();
    expect(answers(prepared)).toEqual(earlier);
    expect(answers(plain)).toEqual(earlier);
    expect(prepared.explainIntent('x').calibration).toEqual(plain.explainIntent('x').calibration);
  });
});
