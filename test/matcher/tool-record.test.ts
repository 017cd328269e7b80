import { describe, expect, it } from 'vitest';
import { describeTool, plainRecord, TermDictionary } from '../../src/matcher/tool-record.js';
import { makeToolDefinition } from './helpers.js';

const weather = makeToolDefinition({ name: 'weather-forecast', display: '', intent: 'read the weather forecast for a city' });
const disk = makeToolDefinition({ name: 'disk-usage', display: '', intent: 'show how full each disk is' });

describe('ToolRecord shared pairs', () => {
  // the pairs of one request are resolved to term ids once and kept while it is measured: what is kept must never
  // answer for another dictionary, nor for one that has learnt the pair's terms since
  describe('when one request is measured against records of different dictionaries', () => {
    it('counts each record by its own dictionary', () => {
      const pairs = plainRecord(describeTool(weather).record).intentPairs;
      const own = describeTool(weather).record;
      const other = describeTool(disk).record;
      expect(own.sharedIntentPairs(pairs)).toBe(pairs.size);
      expect(other.sharedIntentPairs(pairs)).toBe(0);
      expect(own.sharedIntentPairs(pairs)).toBe(pairs.size);
    });
  });

  describe('when the dictionary learns the pair’s terms between two records', () => {
    it('counts the pair in the record that has it', () => {
      const dictionary = new TermDictionary();
      const pairs = plainRecord(describeTool(weather).record).intentPairs;
      const first = describeTool(disk, dictionary, 0).record;
      expect(first.sharedIntentPairs(pairs)).toBe(0);
      const second = describeTool(weather, dictionary, 1).record;
      expect(second.sharedIntentPairs(pairs)).toBe(pairs.size);
      expect(second.sharedNamePairs(plainRecord(second).namePairs)).toBe(1);
    });
  });
});
