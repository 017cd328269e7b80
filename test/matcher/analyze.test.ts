import { describe, expect, it } from 'vitest';
import { analyze, toolSlug } from '../../src/matcher/index.js';

describe('analyze', () => {
  describe('when the text is an identifier', () => {
    it.each([
      ['getCurrentWeather', ['current', 'weather']],
      ['calculate_triangle_area', ['calcul', 'triangl', 'area']],
      ['math.factorial', ['math', 'factori']],
      ['HTTPRequest', ['http', 'request']],
    ])('returns %s split into stemmed words', (text, terms) => {
      expect(analyze(text)).toEqual(terms);
    });
  });

  describe('when the text is Chinese', () => {
    it('returns its words, segmented by ICU, with their characters', () => {
      const terms = analyze('查看最近的提交记录');
      for (const word of ['查看', '最近', '提交', '记录']) expect(terms).toContain(word);
      expect(terms).not.toContain('的');
    });

    it('returns the words of a mixed request', () => {
      expect(analyze('用git查看分支')).toEqual(expect.arrayContaining(['git', '查看', '分支']));
    });
  });

  describe('when the text is Russian or English', () => {
    it('returns inflected forms stemmed alike', () => {
      expect(analyze('коммиты')).toEqual(analyze('коммитов'));
      expect(analyze('branches')).toEqual(analyze('branch'));
    });

    it('returns no stop words and no bare numbers', () => {
      expect(analyze('show the last 5 commits')).toEqual(['show', 'last', 'commit']);
      expect(analyze('покажи все 5 коммитов')).toEqual(['покаж', 'коммит']);
    });
  });
});

describe('toolSlug', () => {
  describe('when the intent has words in any script', () => {
    it.each([
      ['what is the weather in Paris', 'weather-paris'],
      ['查看北京的新闻', 'chakan-beijing-xinwen'],
      ['какая погода в Москве', 'pogoda-moskve'],
    ])('returns a legal folder name for %s', (intent, slug) => {
      expect(toolSlug(intent)).toBe(slug);
      expect(toolSlug(intent)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
    });
  });

  describe('when the intent has no words', () => {
    it('returns new-tool', () => {
      expect(toolSlug('!!! 42')).toBe('new-tool');
    });
  });
});
