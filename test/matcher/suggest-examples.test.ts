import { describe, expect, it } from 'vitest';
import type { UsageEvent } from '../../src/core/index.js';
import { suggestExamples } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

const index = makeIndex([
  makeToolDefinition({ name: 'git-ops', intent: 'inspect a git repository', examples: ['show the last 5 commits'], aliases: ['git log'] }),
  makeToolDefinition({ name: 'file-read', intent: 'read one file' }),
]);

let clock = Date.parse('2026-12-01T10:00:00Z');
function at(minutesLater = 1): string {
  clock += minutesLater * 60_000;
  return new Date(clock).toISOString();
}
const matched = (session: string, intent: string, outcome: 'high' | 'low' | 'none', tools: string[] = [], minutes = 1): UsageEvent => ({
  kind: 'match', session, at: at(minutes), commit: 'c1', intent, tools, outcome,
});
const called = (session: string, tool: string, minutes = 1): UsageEvent => ({ kind: 'call', session, at: at(minutes), commit: 'c1', tool });

describe('suggestExamples', () => {
  describe('when a session calls a tool soon after a request that found nothing', () => {
    it('returns the request as an example of that tool, with how it had been answered', () => {
      const [suggestion] = suggestExamples([matched('s1', 'who wrote this code', 'none'), called('s1', 'git-ops')], index);
      expect(suggestion).toMatchObject({ tool: 'git-ops', path: 'tools/git-ops/TOOL.hdlp', aliases: [] });
      expect(suggestion!.examples).toEqual([expect.objectContaining({ text: 'who wrote this code', count: 1, sessions: 1, answered: ['found: false'] })]);
    });
  });

  describe('when the same request leads to the same tool in several sessions', () => {
    it('returns it once, counted, before rarer ones', () => {
      const events = [
        matched('a', 'rewind the branch', 'low', ['git-ops']), called('a', 'git-ops'),
        matched('b', 'Rewind  the branch', 'none'), called('b', 'git-ops'),
        matched('c', 'what did I break', 'high', ['file-read']), called('c', 'git-ops'),
      ];
      const [suggestion] = suggestExamples(events, index);
      expect(suggestion!.examples.map((text) => [text.text, text.count, text.sessions])).toEqual([
        ['rewind the branch', 2, 2],
        ['what did I break', 1, 1],
      ]);
      expect(suggestion!.examples[0]!.answered.sort()).toEqual(['found: false', 'low confidence']);
      expect(suggestion!.examples[1]!.answered).toEqual(['other tools first']);
    });

    it('returns only texts seen at least minCount times', () => {
      const events = [matched('a', 'rewind the branch', 'none'), called('a', 'git-ops'), matched('b', 'other words here', 'none'), called('b', 'git-ops')];
      expect(suggestExamples(events, index, { minCount: 2 })).toEqual([]);
    });
  });

  describe('when the pair is not evidence', () => {
    it.each([
      ['the request was answered confidently with the called tool first', [matched('s', 'show commits', 'high', ['git-ops', 'file-read']), called('s', 'git-ops')]],
      ['the call came after the window', [matched('s', 'who wrote this code', 'none'), called('s', 'git-ops', 11)]],
      ['the call came from another session', [matched('s', 'who wrote this code', 'none'), called('t', 'git-ops')]],
      ['another request came between', [matched('s', 'who wrote this code', 'none'), matched('s', 'git log', 'high', ['git-ops']), called('s', 'git-ops')]],
      ['the tool already lists the text', [matched('s', 'Show the last 5 commits', 'low', ['git-ops']), called('s', 'git-ops')]],
      ['the tool is gone from the index', [matched('s', 'deploy it now please', 'none'), called('s', 'deploy')]],
    ])('returns nothing when %s', (_case, events) => {
      expect(suggestExamples(events as UsageEvent[], index)).toEqual([]);
    });

    it('pairs only the first call after a request', () => {
      const [suggestion] = suggestExamples([matched('s', 'who wrote this code', 'none'), called('s', 'file-read'), called('s', 'git-ops')], index);
      expect(suggestion!.tool).toBe('file-read');
    });
  });

  describe('when the request is one or two words, or a short Chinese phrase', () => {
    it.each([['git blame'], ['提交历史'], ['blame']])('returns %s as an alias', (text) => {
      const [suggestion] = suggestExamples([matched('s', text, 'none'), called('s', 'git-ops')], index);
      expect(suggestion!.aliases.map((alias) => alias.text)).toEqual([text]);
      expect(suggestion!.examples).toEqual([]);
    });

    it('returns a longer Chinese request as an example', () => {
      const [suggestion] = suggestExamples([matched('s', '最近仓库里改了什么', 'none'), called('s', 'git-ops')], index);
      expect(suggestion!.examples.map((example) => example.text)).toEqual(['最近仓库里改了什么']);
    });
  });

  // review Z6, Z6-5: one principal's many sessions forged "5× in 5 session(s)", and failed calls counted
  describe('when the events name their principals, or a call failed', () => {
    const by = (event: UsageEvent, principal?: string, ok?: boolean): UsageEvent =>
      ({ ...event, ...(principal === undefined ? {} : { principal }), ...(ok === undefined || event.kind !== 'call' ? {} : { ok }) }) as UsageEvent;

    it('counts minCount over distinct principals, events stored without one as one unknown principal', () => {
      const events = ['s1', 's2', 's3'].flatMap((session) => [by(matched(session, 'rewind the branch', 'none'), 'bot'), by(called(session, 'git-ops'), 'bot')]);
      events.push(matched('old1', 'rewind the branch', 'none'), called('old1', 'git-ops'), matched('old2', 'rewind the branch', 'none'), called('old2', 'git-ops'));
      expect(suggestExamples(events, index, { minCount: 3 })).toEqual([]);
      const [suggestion] = suggestExamples(events, index, { minCount: 2 });
      expect(suggestion!.examples).toEqual([expect.objectContaining({ text: 'rewind the branch', count: 5, sessions: 5, principals: 2, by: ['(unrecorded)', 'bot'] })]);
    });

    it('passes over a call that did not succeed: the next successful call in the window answers the request', () => {
      const events = [
        by(matched('s1', 'rewind the branch', 'none'), 'bot'), by(called('s1', 'file-read'), 'bot', false), by(called('s1', 'git-ops'), 'bot', true),
        by(matched('s2', 'who broke it', 'none'), 'bot'), by(called('s2', 'git-ops'), 'bot', false),
      ];
      const suggestions = suggestExamples(events, index);
      expect(suggestions.map((suggestion) => [suggestion.tool, suggestion.examples.map((text) => text.text)])).toEqual([['git-ops', ['rewind the branch']]]);
    });
  });
});
