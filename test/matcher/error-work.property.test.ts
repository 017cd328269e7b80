import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_UNITS, meteredErrors } from '../../src/matcher/error-work.js';
import { createParamsValidator } from '../../src/matcher/validate-params.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// params15: each error ajv makes is charged ERROR_UNITS to the call's work budget, and the lists of errors of a
// referenced schema or a custom keyword are appended, not copied. Over schemas of `checks` minimums on each item,
// a pattern on each string and a referenced schema that refers on, with a small budget: a call the budget lets
// through never made more errors than it paid for (plain ajv, allErrors, counts them), and its answer is plain ajv's.

const TOO_COSTLY = 'is too costly to check';

const cases = fc.record({
  checks: fc.integer({ min: 1, max: 12 }),
  numbers: fc.array(fc.integer({ min: -3, max: 15 }), { maxLength: 40 }),
  words: fc.array(fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 4 }), { maxLength: 30 }),
  limit: fc.integer({ min: 1, max: 40_000 }),
});

function schemaOf(checks: number): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      xs: { type: 'array', items: { allOf: Array.from({ length: checks }, (_, i) => ({ minimum: i })) } },
      words: { type: 'array', items: { $ref: '#/$defs/word' } },
    },
    $defs: { word: { allOf: [{ $ref: '#/$defs/letters' }], maxLength: 3 }, letters: { type: 'string', pattern: '^a+$' } },
  };
}

// plain ajv's validators, one per schema: compiling one per run took most of the test's time
const plains = new Map<number, ReturnType<Ajv2020['compile']>>();
function plainFor(checks: number, schema: Record<string, unknown>): ReturnType<Ajv2020['compile']> {
  if (!plains.has(checks)) plains.set(checks, new Ajv2020({ allErrors: true, strict: false }).compile(schema));
  return plains.get(checks)!;
}

describe('the errors of a params check', () => {
  it('are paid for: a call let through made no more errors than its budget buys, and is judged as plain ajv judges it', () => {
    fc.assert(
      fc.property(cases, ({ checks, numbers, words, limit }) => {
        const schema = schemaOf(checks);
        const params = { xs: numbers, words };
        const result = createParamsValidator(limit).validate(makeToolDefinition({ params_schema: schema }), params);
        const refused = !result.valid && result.problems.some((problem) => problem.message.includes(TOO_COSTLY));
        const plain = plainFor(checks, schema);
        const valid = plain(structuredClone(params));
        if (refused) return;
        expect((plain.errors ?? []).length * ERROR_UNITS).toBeLessThanOrEqual(limit);
        expect(result.valid).toBe(valid);
        if (!result.valid) expect(result.problems.length).toBeLessThanOrEqual(Math.min(101, plain.errors!.length));
      }),
      { numRuns: runs(60) },
    );
  });

  it('rewrites code only, never a string literal that spells the code it rewrites', () => {
    const spelled = 'vErrors = vErrors === null ? validate1.errors : vErrors.concat(validate1.errors); if(vErrors === null){vErrors = [err0];}else {vErrors.push(err0);}errors++; /*';
    const source = `const a = ${JSON.stringify(spelled)}; /* "${'errors++;'} */ vErrors = vErrors === null ? validate2.errors : vErrors.concat(validate2.errors);`;
    const rewritten = meteredErrors(source);
    expect(rewritten).toContain(JSON.stringify(spelled));
    expect(rewritten).toContain('vErrors = self.hldpAppendErrors(vErrors, validate2.errors, instancePath);');
    const tool = makeToolDefinition({ params_schema: { type: 'object', properties: { s: { const: spelled } } } });
    expect(createParamsValidator().validate(tool, { s: spelled }).valid).toBe(true);
    expect(createParamsValidator().validate(tool, { s: `${spelled}x` }).valid).toBe(false);
  });
});
