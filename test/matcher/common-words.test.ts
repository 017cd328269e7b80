import { describe, expect, it } from 'vitest';
import { createMatcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// 469 tools in which the request's words are common: `invoice` in 60, `archive` in 200, `translate` and `spanish` in
// 250 each. The first stage reads the request's terms rarest first within a budget of postings; a budget of 400 read
// `invoice` and `archive` and stopped, so the 40 tools with those two filled the re-rank's 20 places and the one tool
// with three of the four words was never compared.
function registry() {
  const tools = [makeToolDefinition({ name: 'translate-invoice', intent: 'translate an invoice into spanish' })];
  const add = (count: number, name: string, intent: string): void => {
    for (let at = 0; at < count; at++) tools.push(makeToolDefinition({ name: `${name}-${at}`, intent }));
  };
  add(40, 'archive-invoice', 'archive an invoice');
  add(19, 'print-invoice', 'print an invoice');
  add(160, 'archive-records', 'archive old records');
  add(249, 'translate-text', 'translate a text into spanish');
  return makeIndex(tools);
}

describe('matchIntent over a registry whose tools share the request\'s words', () => {
  describe('when the words that single the tool out are common ones', () => {
    it('returns first the tool that has most of the request, not those that have its rarest words', () => {
      const result = createMatcher(registry()).matchIntent('translate invoice spanish archive');
      expect(result.found && result.candidates[0]!.name).toBe('translate-invoice');
    });
  });
});
