import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_UNITS } from '../../src/matcher/error-work.js';
import { createParamsValidator } from '../../src/matcher/validate-params.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// Review X, X1 and X2: each call's params check has a budget of work (MAX_PARAMS_WORK; here a small one). On schemas
// of `k` checks applied to each item (X2) and a counted repetition `a[ab]{m}c` run on each string (X1), whose work is
// known without the gateway's estimator, the budget must hold both ways: a call it lets through never does more than
// its limit of that work, and a call well within it (five times, to leave room for the keywords around) is never
// refused; and what it lets through is judged as plain ajv judges it.

const TOO_COSTLY = 'is too costly to check';

const cases = fc.record({
  checks: fc.integer({ min: 1, max: 40 }),
  repeat: fc.integer({ min: 1, max: 30 }),
  numbers: fc.array(fc.integer({ min: -50, max: 5 }), { maxLength: 60 }),
  ids: fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 80 }), { maxLength: 12 }),
  limit: fc.integer({ min: 1, max: 6_000 }),
});

describe('the work budget of one call\'s params check', () => {
  it('lets through no more work than its limit, refuses none well within it, and judges as ajv does', () => {
    fc.assert(
      fc.property(cases, ({ checks, repeat, numbers, ids, limit }) => {
        const schema = {
          type: 'object',
          properties: {
            xs: { type: 'array', items: { allOf: Array.from({ length: checks }, (_, i) => ({ minimum: -i - 1 })) } },
            ids: { type: 'array', items: { type: 'string', pattern: `a[ab]{${repeat}}c` } },
          },
        };
        const params = { xs: numbers, ids };
        const result = createParamsValidator(limit).validate(makeToolDefinition({ params_schema: schema }), params);
        const refused = !result.valid && result.problems.some((problem) => problem.message.includes(TOO_COSTLY));
        // checks applied to items, and RE2 steps: its program has at least `repeat` instructions, tried at each position
        const work = numbers.length * checks + ids.reduce((sum, id) => sum + (id.length + 1) * repeat, 0);
        if (!refused) expect(work).toBeLessThanOrEqual(limit);
        // each failing check makes an error, charged ERROR_UNITS (params15): the minimums a number is below, the ids the pattern misses
        const pattern = new RegExp(`a[ab]{${repeat}}c`);
        const errors = numbers.reduce((sum, n) => sum + Math.max(0, Math.min(checks, -n - 1)), 0) + ids.filter((id) => !pattern.test(id)).length;
        if (5 * (work + numbers.length + ids.length + errors * ERROR_UNITS) + 50 <= limit) expect(refused).toBe(false);
        if (!refused) {
          const plain = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
          expect(result.valid).toBe(plain(structuredClone(params)));
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
