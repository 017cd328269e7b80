import { describe, expect, it } from 'vitest';
import { createMatcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

// The English stemmer leaves some forms of one word apart: discovered → `discov`, discovery → `discoveri`.
const TOOLS = [
  makeToolDefinition({ name: 'antibiotic-dosage', intent: 'the dosage of an antibiotic such as penicillin' }),
  makeToolDefinition({ name: 'discovery-year', intent: 'the year of a scientific discovery such as penicillin' }),
];

describe('matchIntent when the request and the tool use other forms of a word', () => {
  describe('when the stemmer does not join them', () => {
    it('returns first the tool with the other form', () => {
      const result = createMatcher(makeIndex(TOOLS)).matchIntent('when was penicillin discovered');
      expect(result.found && result.candidates.map((candidate) => candidate.name)).toEqual(['discovery-year', 'antibiotic-dosage']);
    });
  });

  describe('when only the other form matches', () => {
    it('returns found: false, as another form is no evidence', () => {
      expect(createMatcher(makeIndex(TOOLS)).matchIntent('who discovered it').found).toBe(false);
    });
  });
});
