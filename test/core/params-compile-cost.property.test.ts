// The compile count of a params schema (params14) against what ajv writes for it, configured as the params validator
// is: over generated schemas — every applicator, references ajv inlines and references it calls, subschemas shared by
// two places (a YAML alias), patterns, long enums — the code ajv hands to `new Function` is never more than
// BYTES_PER_UNIT bytes a unit. ajv's compile time follows that code (~0.5-1.4 ms a KB at load 20), so the count
// bounds it: measured in bytes written, never in time.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COMPILE_UNITS, paramsCompileCost, type JsonSchema } from '../../src/core/index.js';
import { createParamsValidator } from '../../src/matcher/index.js';
import { programSizeOf } from '../../src/matcher/linear-regexp.js';
import { runs } from '../helpers/property-runs.js';

type Schema = Record<string, unknown>;

// the most code a unit stood for in the calibration (bench/HISTORY.md, params14: 95-250 bytes by kind, 460 for a
// schema nested 60 deep, whose instance paths lengthen each level's code)
const BYTES_PER_UNIT = 400;

let written = 0;
const RealFunction = globalThis.Function;
beforeAll(() => {
  globalThis.Function = new Proxy(RealFunction, {
    construct(target, args: unknown[]) {
      written += String(args.at(-1)).length;
      return Reflect.construct(target, args) as object;
    },
  });
});
afterAll(() => {
  globalThis.Function = RealFunction;
});

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.constantFrom<Schema>({ type: 'string' }, { type: 'integer', minimum: 0 }, { type: ['string', 'null'] }, { maxLength: 8 }, { format: 'email' }, { const: { a: [1, 2, { b: 'x' }] } }, { default: 'x', type: 'string' }),
  fc.constantFrom('^a+$', '[a-z]{40}', '(?:ab|cd){20}', '^\\p{L}+$').map((pattern) => ({ type: 'string', pattern })),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 260 }).map((values) => ({ enum: values })),
  fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 }).map((names) => ({ type: 'object', required: names })),
);

const names = fc.constantFrom('a', 'b', 'c', 'd', 'e');

const tree = fc.letrec<{ node: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ allOf: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
    fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(names, tie('node'), { maxKeys: 5 }), additionalProperties: fc.oneof(fc.boolean(), tie('node')) }, { requiredKeys: ['type', 'properties'] }),
    fc.record({ properties: fc.dictionary(names, tie('node'), { maxKeys: 3 }), allOf: fc.array(fc.record({ properties: fc.dictionary(names, tie('node'), { maxKeys: 3 }) }), { maxLength: 3 }), unevaluatedProperties: fc.oneof(fc.boolean(), tie('node')) }),
    fc.record({ patternProperties: fc.dictionary(fc.constantFrom('^x', '^y[0-9]{30}', '_(?:ab|cd){20}$'), tie('node'), { maxKeys: 3 }), propertyNames: leaf }),
    fc.record({ type: fc.constant('array'), items: tie('node'), prefixItems: fc.array(tie('node'), { maxLength: 2 }), contains: tie('node'), unevaluatedItems: fc.boolean() }, { requiredKeys: ['type'] }),
    fc.record({ if: tie('node'), then: tie('node'), else: tie('node'), not: tie('node') }, { requiredKeys: ['if'] }),
    fc.record({ dependentSchemas: fc.dictionary(names, tie('node'), { maxKeys: 3 }), dependentRequired: fc.dictionary(names, fc.array(names, { maxLength: 3 }), { maxKeys: 2 }) }),
    // references: to a definition ajv inlines (no reference inside it), or to one it calls (`d2` refers to `d0`)
    fc.constantFrom('d0', 'd1', 'd2', 'self').map((name) => ({ $ref: name === 'self' ? '#' : `#/$defs/${name}` })),
  ),
}));

// the definitions references name; `d1` is generated, so an inlined target can be large
const schema: fc.Arbitrary<Schema> = fc.record({ root: tree.node, d1: tree.node, shared: tree.node, sharedTwice: fc.boolean() }).map(({ root, d1, shared, sharedTwice }) => ({
  type: 'object',
  properties: { root, one: shared, two: sharedTwice ? shared : { type: 'null' } },
  $defs: { d0: { type: 'object', properties: { x: { type: 'integer' } } }, d1: removeReferences(d1), d2: { properties: { next: { $ref: '#/$defs/d0' } } } },
}));

// a definition that referred to itself through `d1` would be a loop ajv cannot compile
function removeReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(removeReferences);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => (key === '$ref' ? ['type', 'string'] : [key, removeReferences(item)])));
}

describe('the compile count of a params schema', () => {
  it('is at least the code ajv writes for it, BYTES_PER_UNIT bytes a unit, and the validator compiles no schema over the bound', () => {
    fc.assert(
      fc.property(schema, (generated) => {
        const cost = paramsCompileCost(generated as JsonSchema, { programSize: programSizeOf });
        written = 0;
        const answer = createParamsValidator().validate({ name: 'generated', params_schema: generated } as never, {});
        if (cost.units > MAX_COMPILE_UNITS) {
          // refused before ajv writes anything (by this count, or by the count of applications per value before it)
          expect(answer.valid ? '' : answer.errorMessage).toMatch(/units to compile|more than 16 times/);
          expect(written).toBe(0);
          return;
        }
        expect(written).toBeLessThanOrEqual(BYTES_PER_UNIT * cost.units);
      }),
      { numRuns: runs(150) },
    );
  });
});
