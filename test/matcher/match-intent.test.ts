import { beforeAll, describe, expect, it } from 'vitest';
import { limitRefusal, type MatchResult } from '../../src/core/index.js';
import { createMatcher, loadLexicon, MAX_LIMIT, type Matcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition, scanStarterTools } from './helpers.js';

const LEGAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function names(result: MatchResult): string[] {
  return result.found ? result.candidates.map((candidate) => candidate.name) : [];
}

describe('matchIntent', () => {
  let matcher: Matcher;
  beforeAll(async () => {
    matcher = createMatcher(await scanStarterTools());
  });

  describe('when given the spec example 查看最近的提交记录', () => {
    it('returns git-ops as the best candidate', () => {
      const result = matcher.matchIntent('查看最近的提交记录');
      expect(result.found).toBe(true);
      expect(names(result)[0]).toBe('git-ops');
    });

    it('returns candidates carrying what the exact call needs', () => {
      const result = matcher.matchIntent('查看最近的提交记录');
      if (!result.found) throw new Error('expected a match');
      const [best] = result.candidates;
      expect(best).toMatchObject({ name: 'git-ops', display: 'Git仓库操作' });
      expect(best!.intent).toContain('提交记录');
      expect(best!.params_schema).toMatchObject({ type: 'object', properties: { op: { enum: expect.any(Array) } } });
      expect(best!.score).toBeGreaterThan(0);
      expect(best!.matched.join('; ')).toMatch(/提交/);
    });
  });

  describe('when the intent is in Chinese, Russian, English or a mix', () => {
    it.each([
      ['用git查看分支', 'git-ops'],
      ['读取配置文件', 'file-read'],
      ['执行一条命令', 'shell-exec'],
      ['调用接口查询状态', 'http-request'],
      ['покажи последние коммиты', 'git-ops'],
      ['выполни команду ls', 'shell-exec'],
      ['сохрани текст в файл', 'file-write'],
      ['show me the git log', 'git-ops'],
      ['read the file README.md', 'file-read'],
      ['run ls -la on the server', 'shell-exec'],
      ['write hello to notes.txt', 'file-write'],
      ['send a GET request to /v1/status', 'http-request'],
      ['read the file "notes.txt"', 'file-read'],
      ['fetch https://example.com/api/status', 'http-request'],
    ])('returns the right tool first for %s', (intent, tool) => {
      expect(names(matcher.matchIntent(intent))[0]).toBe(tool);
    });
  });

  describe('when the request words it in a way no definition does', () => {
    // paraphrases: found through segmentation, stemming and coverage, not by meeting an example again
    const PARAPHRASES: Array<[string, string]> = [
      ['显示这个仓库的提交历史', 'git-ops'],
      ['列出所有分支', 'git-ops'],
      ['打开文件看看内容', 'file-read'],
      ['把这段文字保存到文件里', 'file-write'],
      ['运行脚本统计代码行数', 'shell-exec'],
      ['把结果写入到文件', 'file-write'],
      ['用curl调用一下这个接口', 'http-request'],
      ['показать историю изменений репозитория', 'git-ops'],
      ['прочитать содержимое файла', 'file-read'],
      ['покажи содержимое файла config.yaml', 'file-read'],
      ['сделай GET запрос к серверу', 'http-request'],
      ['отправь HTTP запрос', 'http-request'],
      ['run the build script in a terminal', 'shell-exec'],
      ['save this text into notes.txt', 'file-write'],
    ];

    it('has requests that occur in no starter definition', async () => {
      const texts = (await scanStarterTools()).tools.map((tool) => JSON.stringify(tool));
      for (const [intent] of PARAPHRASES) expect(texts.some((text) => text.includes(intent))).toBe(false);
    });

    it.each(PARAPHRASES)('returns the right tool first for %s', (intent, tool) => {
      expect(names(matcher.matchIntent(intent))[0]).toBe(tool);
    });
  });

  describe('when no tool in the repository fits', () => {
    it.each([
      ['今天天气怎么样'],
      ['帮我订一张去北京的机票'],
      ['какая погода в Москве'],
      ['закажи пиццу на вечер'],
      ['what is the weather in Paris'],
      ['calculate the area of a triangle'],
      ['tell me a joke'],
    ])('returns found: false for %s', (intent) => {
      expect(matcher.matchIntent(intent).found).toBe(false);
    });

    // Issue #11's vector stage, the price of it in a registry of five: where the words find nothing, one tool a little
    // nearer in meaning than the others stands out (Grubbs' test at 0.2 over 5 cosines), and is offered — low, by stage
    // "vector", for the agent to decline — where found: false was answered before
    it.each([
      ['book a flight to Tokyo', 'http-request'],
      ['who won the world cup', 'file-read'],
      ['convert 100 USD to EUR', 'shell-exec'],
    ])('finds nothing by the words for %s, and offers only by meaning, low', (intent, nearest) => {
      expect(matcher.explainIntent(intent).found).toBe(false);
      expect(matcher.matchIntent(intent)).toMatchObject({ found: true, confidence: 'low', stage: 'vector' });
      expect(names(matcher.matchIntent(intent))[0]).toBe(nearest);
    });

    it('returns a suggestion naming where the new tool would be defined', () => {
      const result = matcher.matchIntent('what is the weather in Paris');
      if (result.found) throw new Error('expected found: false');
      const slug = /tools\/([^/]+)\/TOOL\.hdlp/.exec(result.suggestion)?.[1];
      expect(slug).toMatch(LEGAL_NAME);
      expect(slug).toContain('weather');
      expect(result.suggestion).toContain('此工具尚不在仓库中');
    });

    it('returns at most three near misses, never the catalogue', () => {
      // "set" is only in git-ops' `why`: a near miss, not evidence
      const result = matcher.matchIntent('set a timer for ten minutes');
      if (result.found) throw new Error('expected found: false');
      expect(result.near.length).toBeLessThanOrEqual(3);
    });

    it('returns found: false for an intent with no words', () => {
      expect(matcher.matchIntent('').found).toBe(false);
      expect(matcher.matchIntent('42 !!! ...').found).toBe(false);
    });
  });

  describe('when two tools share the request\'s words', () => {
    it('returns first the one that has them side by side, as the request does', () => {
      const phrased = createMatcher(
        makeIndex([
          makeToolDefinition({ name: 'quote-lookup', intent: 'Look up the current stock price of a listed company' }),
          // its name shares no word with the request: only the order of the intent's words tells the two apart
          makeToolDefinition({ name: 'drop-alert', intent: 'Warn when the price of an item drops while it is in stock' }),
        ]),
      );
      const { ranked } = phrased.explainIntent('what is the stock price of ACME today');
      expect(ranked.map((entry) => entry.tool.name)).toEqual(['quote-lookup', 'drop-alert']);
    });

    it('returns first the one whose examples ask the same, not the one whose examples give the same values', () => {
      const tools = [
        makeToolDefinition({ name: 'note-read', intent: 'read a text file', examples: ['read notes.txt'] }),
        makeToolDefinition({ name: 'note-write', intent: 'write a text file', examples: ['write hello into todo.txt'] }),
      ];
      const { ranked } = createMatcher(makeIndex(tools)).explainIntent('write the list to notes.txt');
      expect(ranked[0]!.tool.name).toBe('note-write');
    });
  });

  describe('when a limit is given', () => {
    it.each([1, 2, 3])('returns at most the limit %s', (limit) => {
      const result = matcher.matchIntent('read or write a file', { limit });
      expect(result.found).toBe(true);
      expect(names(result).length).toBeGreaterThanOrEqual(1);
      expect(names(result).length).toBeLessThanOrEqual(limit);
    });

    // review U11-25: 0, -5 and 2.7 were read as 1, 1 and 2, and 100 as 10, in silence; every surface refuses them first
    it.each([0, -5, 2.7, 4, 100, Number.NaN])('refuses the limit %s, naming the range 1 to MAX_LIMIT', (limit) => {
      expect(() => matcher.matchIntent('read or write a file', { limit })).toThrow(new RangeError(limitRefusal('limit', limit)));
      expect(limitRefusal('limit', limit)).toContain(`must be an integer from 1 to ${MAX_LIMIT}`);
    });

    it('returns three candidates by default and MAX_LIMIT (the spec\'s three) when asked for that many', () => {
      const tools = Array.from({ length: 20 }, (_, index) =>
        makeToolDefinition({ name: `weather-${index}`, intent: `get the weather forecast for a city, variant ${index}` }),
      );
      const many = createMatcher(makeIndex(tools));
      expect(MAX_LIMIT).toBe(3);
      expect(names(many.matchIntent('weather forecast for a city')).length).toBe(3);
      expect(names(many.matchIntent('weather forecast for a city', { limit: MAX_LIMIT })).length).toBe(MAX_LIMIT);
    });
  });

  describe('when the reasoning is asked for', () => {
    it('returns the ranking and decision behind the answer', () => {
      const explanation = matcher.explainIntent('查看最近的提交记录');
      expect(explanation.found).toBe(true);
      expect(explanation.ranked[0]).toMatchObject({ tool: { name: 'git-ops' } });
      expect(explanation.ranked[0]!.probability).toBeGreaterThan(0.5);
      expect(explanation.decision.coverage).toBe(1);
    });

    it('returns a matcher over the same index with other parameters', async () => {
      // the dictionary read: an answer made while it is being read is never high (userZ7 F9), and this matcher is not `ready`
      await loadLexicon();
      // a model that is never sure: what matches is still offered, with low confidence
      const strict = matcher.reconfigure({ decision: { features: [], weights: [], bias: -5, threshold: 0.99 } });
      expect(strict.matchIntent('查看最近的提交记录')).toMatchObject({ found: true, confidence: 'low' });
      expect(matcher.matchIntent('查看最近的提交记录')).toMatchObject({ found: true, confidence: 'high' });
      expect(strict.commit).toBe(matcher.commit);
    });
  });

  describe('when the index is empty', () => {
    it('returns found: false with no near misses', () => {
      const empty = createMatcher(makeIndex([]));
      expect(empty.matchIntent('查看最近的提交记录')).toMatchObject({ found: false, near: [] });
    });
  });
});

describe('matchIntent with a Chinese request that holds a number or a file name', () => {
  // a sentence written without spaces is one token: a number inside it once made every word of it a "value", which is no evidence
  const matcher = createMatcher(
    makeIndex([
      makeToolDefinition({ name: 'kill-process', display: '结束进程', intent: '按端口结束占用它的进程', examples: [] }),
      makeToolDefinition({ name: 'send-mail', display: '发邮件', intent: '给同事发一封邮件', examples: [] }),
    ]),
  );

  it.each([['杀掉占用8080端口的进程'], ['结束3个进程']])('returns the tool its words name for %s', (intent) => {
    const result = matcher.matchIntent(intent);
    expect(result).toMatchObject({ found: true, candidates: [{ name: 'kill-process' }] });
  });
});
