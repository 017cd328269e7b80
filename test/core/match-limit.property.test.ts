import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isMatchLimit, limitRefusal, LIMIT_SCHEMA, MAX_LIMIT, withLimitRefusal } from '../../src/core/index.js';
import { runs } from '../helpers/property-runs.js';

// Review U11-25: a match's limit is whatever a caller sends (a body's JSON, MCP arguments, a command line's text).
// Whatever it is, the rule is the schema's (an integer from 1 to MAX_LIMIT), and its refusal is one short line that
// names the range and never walks or echoes a large value.
describe('the limit of a match', () => {
  it('is taken exactly when the schema takes it, and any other value is refused in one short line naming the range', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.double(), fc.integer(), fc.string({ maxLength: 500 })), (value) => {
        const taken = typeof value === 'number' && Number.isInteger(value) && value >= LIMIT_SCHEMA.minimum && value <= LIMIT_SCHEMA.maximum;
        expect(isMatchLimit(value)).toBe(taken);
        const refusal = limitRefusal("'limit'", value);
        expect(refusal.startsWith(`'limit' must be an integer from 1 to ${MAX_LIMIT} `)).toBe(true);
        expect(refusal).not.toMatch(/[\n\r]/);
        expect(refusal.length).toBeLessThan(200);
      }),
      { numRuns: runs(500) },
    );
  });

  it('makes every problem of the top-level limit one refusal, leaving the others as they were', () => {
    const problem = fc.record({ path: fc.array(fc.constantFrom('limit', 'intent', 'context', 0), { maxLength: 2 }), message: fc.string({ maxLength: 20 }) });
    fc.assert(
      fc.property(fc.array(problem, { maxLength: 8 }), fc.jsonValue(), (problems, got) => {
        const isLimit = (entry: { path: Array<string | number> }): boolean => entry.path.length === 1 && entry.path[0] === 'limit';
        const named = withLimitRefusal(problems, got);
        expect(named.filter((entry) => !isLimit(entry))).toEqual(problems.filter((entry) => !isLimit(entry)));
        expect(named.filter(isLimit).map((entry) => entry.message)).toEqual(problems.some(isLimit) ? [limitRefusal("'limit'", got)] : []);
      }),
      { numRuns: runs(300) },
    );
  });
});
