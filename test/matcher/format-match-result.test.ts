import { describe, expect, it } from 'vitest';
import { formatMatchResult } from '../../src/matcher/index.js';

describe('formatMatchResult', () => {
  describe('when tools were found', () => {
    it('returns one numbered entry per candidate with its params and how to call it', () => {
      const text = formatMatchResult({
        found: true,
        confidence: 'high',
        stage: 'lexical',
        candidates: [
          {
            name: 'git-ops',
            display: 'Git仓库操作',
            intent: '查看本地git仓库的提交记录',
            score: 9.5,
            matched: ['examples: 查看, 提交'],
            params_schema: { type: 'object', properties: { op: { type: 'string' } }, required: [] },
          },
        ],
      });
      expect(text).toBe(
        [
          'found (confidence high, stage lexical)',
          '1. git-ops (Git仓库操作)  score 9.5',
          '   查看本地git仓库的提交记录',
          '   params: { op?: string }',
          '   matched: examples: 查看, 提交',
          "call one with: hldp call git-ops --params '{}'",
        ].join('\n'),
      );
    });
  });

  describe('when the match is weak', () => {
    it('says so before the candidates, after its confidence and stage', () => {
      const candidate = { name: 'http-request', display: 'HTTP请求', intent: 'send a request', score: 1, matched: ['aliases: call'], params_schema: {} };
      const text = formatMatchResult({ found: true, confidence: 'low', stage: 'lexical', candidates: [candidate] });
      expect(text.split('\n')[0]).toBe('found (confidence low, stage lexical)');
      expect(text.split('\n')[1]).toMatch(/^weak match: /);
      expect(text).toContain('1. http-request (HTTP请求)  score 1');
    });
  });

  describe('when a model named the candidates', () => {
    it('says which stage named them', () => {
      const candidate = { name: 'git-ops', display: 'Git', intent: 'inspect a repository', score: 0, matched: [], params_schema: {} };
      const text = formatMatchResult({ found: true, confidence: 'low', stage: 'model', candidates: [candidate] });
      expect(text.split('\n')[0]).toBe('found (confidence low, stage model)');
      expect(text).toContain('named by the configured model');
    });
  });

  describe('when the vector stage named the candidates', () => {
    it('says they match the intent by meaning only, weakly', () => {
      const candidate = { name: 'city-weather', display: 'Weather', intent: 'rain, snow and wind expected in a city', score: 0.76, matched: ['meaning: cosine 0.76'], params_schema: {} };
      const text = formatMatchResult({ found: true, confidence: 'low', stage: 'vector', candidates: [candidate] });
      expect(text.split('\n')[0]).toBe('found (confidence low, stage vector)');
      expect(text.split('\n')[1]).toMatch(/^weak match, by meaning: no tool has the intent's words/);
      expect(text).toContain('matched: meaning: cosine 0.76');
    });
  });

  describe('when nothing fits', () => {
    it('returns the suggestion and the near misses', () => {
      const text = formatMatchResult({
        found: false,
        suggestion: 'write its definition at tools/weather-paris/TOOL.hdlp',
        near: [{ name: 'http-request', display: 'HTTP请求', score: 1.2 }],
      });
      expect(text).toContain('no tool found. write its definition at tools/weather-paris/TOOL.hdlp');
      expect(text).toContain('  http-request (HTTP请求)  score 1.2');
    });
  });
});
