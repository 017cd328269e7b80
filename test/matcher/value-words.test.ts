import { describe, expect, it } from 'vitest';
import { valueWords, withoutValues } from '../../src/matcher/value-words.js';

describe('valueWords', () => {
  describe('when a request gives values', () => {
    it.each([
      ["I'd like to hear the song 'Wo noor'", ['wo', 'noor']],
      ['play rock songs by Thousand Foot Krutch in the kitchen', ['thousand', 'foot', 'krutch']],
      ['my user ID is user123 and the product SK123', ['user123', 'sk123']],
      ['read the file notes.txt', ['notes', 'txt']],
      ['fetch https://example.com/api/status', ['https', 'example', 'com', 'api', 'status']],
    ])('returns the values of %s', (text, values) => {
      expect([...valueWords(text)].sort()).toEqual([...values].sort());
    });
  });

  describe('when a sentence written without spaces holds a number, a code or a file name', () => {
    it.each([
      ['杀掉占用8080端口的进程', []],
      ['打开settings.json文件', ['settings', 'json']],
      ['查一下订单SK123的状态', ['sk123']],
      ['删除3天前的日志', []],
    ])('returns only those as values in %s, not the words around them', (text, values) => {
      expect([...valueWords(text)].sort()).toEqual([...values].sort());
    });
  });

  describe('when a capitalised word opens a sentence', () => {
    it('returns no value for it', () => {
      expect(valueWords('Find a hotel. Book it for me!')).toEqual(new Set());
      expect(valueWords('"Show me the weather"')).toEqual(new Set(['show', 'weather']));
    });
  });

  describe('when the words are all lower case and unquoted', () => {
    it('returns none', () => {
      expect(valueWords('sort the list in ascending order')).toEqual(new Set());
    });
  });
});

describe('withoutValues', () => {
  it('returns the content words of an example without the values it gives', () => {
    expect(withoutValues('write this text to notes.txt')).toBe('write text');
    expect(withoutValues('what is the weather in Paris')).toBe('weather');
  });
});
