import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createMatcher, LEXICON_LOADING, lexiconSettled, searchIndexFiles, type Matcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// Issue #18: a server restarted over its kept search index waited for the Chinese-English dictionary before intent
// matching was ready (at 100,000 tools ~0.4 s of a worker's CPU, a third of the start), because its registry has
// Chinese examples; but the calibration those examples are asked for is kept beside the index and needs nothing of the
// dictionary. Matching is ready without it; a Chinese request before it is read is answered `incomplete`, as any is.

const tool = (name: string, intent: string, examples: string[]) => makeToolDefinition({ name, display: name, intent, why: 'agents ask for it', examples });

const TOOLS = [
  tool('weather-forecast', 'Get the weather forecast for a city', ['明天会下雨吗', 'what is the weather in Paris', '北京今天多少度']),
  tool('delete-file', 'Delete a file from the disk', ['把这个文件删掉', 'remove old.log', '清理临时文件']),
  tool('send-email', 'Send an email message to a recipient', ['给老板发邮件', 'mail the report to Anna', '通知团队']),
  tool('list-commits', 'List the latest commits of a git repository', ['最近的提交记录', 'show the last 5 commits', 'git log of main']),
  tool('read-file', 'Read a text file and print its lines', ['打开文件看看', 'print README.md', 'show me notes.txt']),
];
const ENGLISH = ['will it rain in Paris tomorrow', 'remove the old log file', 'mail Anna the report', 'show the last commits', 'something else entirely'];
const CHINESE = '明天上海的天气预报';

const answers = (matcher: Pick<Matcher, 'explainIntent' | 'matchIntent'>, intents: string[]): unknown[] =>
  intents.map((intent) => ({ explained: matcher.explainIntent(intent), result: matcher.matchIntent(intent) }));

describe('prepareLettingGo over a kept search index whose registry has Chinese examples', () => {
  it('is ready before the dictionary is read, answers a Chinese request incomplete until it is, and every answer as the first start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hldp-ready-dictionary-'));
    try {
      // the first start builds the index and calibrates it on the Chinese examples with their senses: it waits for the
      // dictionary, and keeps both
      const first = await createMatcher(makeIndex(TOOLS), { searchFiles: searchIndexFiles(dir) }).prepareLettingGo();
      expect(lexiconSettled()).toBe(true);
      expect(first.explainIntent('x').calibration).not.toHaveProperty('provisional');
      const expected = answers(first, [...ENGLISH, CHINESE]);

      // a restart: the matcher's modules as a new process has them, nothing read yet
      vi.resetModules();
      const restart = await import('../../src/matcher/index.js');
      expect(restart.lexiconSettled()).toBe(false);
      const restarted = await restart.createMatcher(makeIndex(TOOLS), { searchFiles: restart.searchIndexFiles(dir) }).prepareLettingGo();
      // on main it was read by now: prepareLettingGo waited for it
      expect(restart.lexiconSettled()).toBe(false);
      expect(restarted.matchIntent(CHINESE).incomplete).toBe(LEXICON_LOADING);
      expect(answers(restarted, ENGLISH)).toEqual(expected.slice(0, ENGLISH.length));

      // and once it is read, a Chinese request is answered in full, as by the first start
      await restart.loadLexicon();
      expect(answers(restarted, [...ENGLISH, CHINESE])).toEqual(expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
