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
      expect(valueWords('Say "Show me the weather" to it')).toEqual(new Set(['show', 'weather']));
    });
  });

  describe('when the whole request is wrapped in quotes', () => {
    it.each([
      ['"Show me the weather"', []],
      ['“删除这个文件”', []],
      ['«удали этот файл»', []],
      [`"'Get the stock price of Apple for the last 5 days in NASDAQ.'"`, ['apple']],
      ["'Find a restaurant that's open late in Paris' ", ['paris']],
    ])('reads %s as the request, not as a value', (text, values) => {
      expect([...valueWords(text)].sort()).toEqual([...values].sort());
    });

    it('still reads two quotations of their own as values', () => {
      expect([...valueWords("'hello world' and 'good night'")].sort()).toEqual(['good', 'hello', 'night', 'world']);
    });
  });

  describe('when quoted text holds an apostrophe between letters', () => {
    it.each([
      ["Analyze the sentiment of a customer review 'I love the food here! It's always fresh and delicious.'.", ['love', 'food', 'always', 'fresh', 'delicious']],
      ["send the body 'Let's meet at noon' to Ann", ['let', 'meet', 'noon', 'ann']],
      ["find the book 'O'Brien's war' please", ['brien', 'war']],
    ])('reads the whole quotation of %s as a value', (text, values) => {
      expect([...valueWords(text)].sort()).toEqual([...values].sort());
    });

    it('still ends a quotation at a closing quote after a letter', () => {
      expect([...valueWords("rename 'draft' to 'final' and save it")].sort()).toEqual(['draft', 'final']);
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
