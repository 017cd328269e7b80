import { describe, expect, it } from 'vitest';
import { analyze, createMatcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// Issue #11: an acronym's plural (URLs, PDFs, ETFs) was split where an identifier's acronym meets the next word
// (HTTPRequest → HTTP Request), into letters that are no word (ur + ls, i + ds, et + fs), so it never met the acronym.
const TOOLS = [
  makeToolDefinition({ name: 'market-data', intent: 'Quotes for stocks, ETFs and indices' }),
  makeToolDefinition({ name: 'link-checker', intent: 'Tells which of the given URLs answer' }),
  makeToolDefinition({ name: 'document-merge', intent: 'Merges several PDFs into one' }),
];

describe('matchIntent when the tool writes an acronym in the plural and the request in the singular', () => {
  it.each([
    ['what does an etf cost', 'market-data'],
    ['is this url dead', 'link-checker'],
    ['combine this pdf with another', 'document-merge'],
  ])('returns the tool for %s', (request, tool) => {
    const result = createMatcher(makeIndex(TOOLS)).matchIntent(request);
    expect(result.found && result.candidates[0]!.name).toBe(tool);
  });
});

describe('analyze', () => {
  describe('when an identifier or a text has acronyms', () => {
    it.each([
      ['getURLs', ['url']],
      ['list all ATMs and ETFs', ['list', 'atm', 'etf']],
      ['APIsList', ['api', 'list']],
      ['HTTPRequest', ['http', 'request']],
      ['XMLHttpRequest', ['xml', 'http', 'request']],
      ['TVShows', ['tv', 'show']],
    ])('returns %s split into whole words', (text, terms) => {
      expect(analyze(text)).toEqual(terms);
    });
  });
});
