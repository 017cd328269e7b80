// The static check of a params schema's cost (review V, V4's leftover) against ajv itself, configured as the params
// validator is, over generated graphs of subschemas that refer to one another through every applicator. Each
// subschema of the schema given to ajv carries a keyword that counts, per value of the params (its instance path),
// how many times ajv applies that subschema to it: the check's bound is on those counts, in steps, never in time.
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { MAX_CHECKS_PER_VALUE, paramsSchemaCost, type JsonSchema } from '../../src/core/index.js';
import { linearRegExp } from '../../src/matcher/linear-regexp.js';
import { re2Matches } from '../../src/scanner/re2-refusal.js';
import { runs } from '../helpers/property-runs.js';

type Schema = Record<string, unknown>;
const SINGLE = ['not', 'if', 'then', 'else', 'additionalProperties', 'items', 'contains', 'unevaluatedProperties', 'propertyNames'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];

// a copy of the schema whose every subschema counts its applications: `x-step` holds the subschema's number
function instrumented(schema: unknown, numbers: { next: number }): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Schema = { 'x-step': numbers.next++ };
  for (const [keyword, value] of Object.entries(schema as Schema)) {
    if (SINGLE.includes(keyword)) copy[keyword] = instrumented(value, numbers);
    else if (LISTS.includes(keyword) && Array.isArray(value)) copy[keyword] = value.map((item) => instrumented(item, numbers));
    else if (MAPS.includes(keyword)) copy[keyword] = Object.fromEntries(Object.entries(value as Schema).map(([name, item]) => [name, instrumented(item, numbers)]));
    else copy[keyword] = value;
  }
  return copy;
}

/** The most times ajv (as the params validator configures it) applies one subschema to one value of `data`. */
function mostApplications(schema: JsonSchema, data: unknown): number {
  const counts = new Map<string, number>();
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false, addUsedSchema: false, validateSchema: false, code: { regExp: linearRegExp } });
  ajv.addKeyword({
    keyword: 'x-step',
    schemaType: 'number',
    validate: (number: number, _data: unknown, _parent: unknown, context?: { instancePath: string }) => {
      const key = `${number}@${context?.instancePath ?? ''}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return true;
    },
  });
  const validate = ajv.compile(instrumented(schema, { next: 0 }) as Schema);
  try {
    validate(data);
  } catch (error) {
    // a stack overflow is the answer for a loop; ajv 8 also throws a TypeError of its own on some oneOf and
    // patternProperties graphs ("Cannot set properties of undefined"), the params validator too: the counts until then stand
    if (!(error instanceof TypeError)) throw error;
  }
  return Math.max(0, ...counts.values());
}

const reference = (count: number): fc.Arbitrary<Schema> => fc.nat(count - 1).map((node) => ({ $ref: `#/$defs/n${node}` }));

// any applicator, any number of branches, up to three keywords a subschema: what the check must bound wherever it accepts
function anyNode(count: number): fc.Arbitrary<Schema> {
  const ref = reference(count);
  const refs = fc.array(ref, { minLength: 1, maxLength: 3 });
  const names = (keys: string[]): fc.Arbitrary<Record<string, Schema>> => fc.dictionary(fc.constantFrom(...keys), ref, { minKeys: 1, maxKeys: 2 });
  const keyword: fc.Arbitrary<[string, unknown]> = fc.oneof(
    fc.tuple(fc.constant('type'), fc.constantFrom('object', 'array')),
    fc.tuple(fc.constant('required'), fc.constant(['z'])),
    fc.tuple(fc.constantFrom('properties', 'dependentSchemas'), names(['k', 'j', 'q'])),
    fc.tuple(fc.constant('patternProperties'), names(['^k', 'j$', '.'])),
    fc.tuple(fc.constant('additionalProperties'), fc.oneof(ref, fc.constant(false))),
    fc.tuple(fc.constantFrom('unevaluatedProperties', 'items', 'contains', 'not', 'if', 'then', 'else'), ref),
    fc.tuple(fc.constantFrom('prefixItems', 'allOf', 'anyOf', 'oneOf'), refs),
  );
  return fc.array(keyword, { maxLength: 3 }).map((entries) => Object.fromEntries(entries));
}

// only applicators ajv takes whatever their outcome when every subschema fails (each requires a `z` no value has),
// one name `k` for every property: the counts along `{k: {k: …}}` are then exactly the check's
function failingNode(count: number): fc.Arbitrary<Schema> {
  const ref = reference(count);
  const refs = fc.array(ref, { minLength: 1, maxLength: 3 });
  const onK = fc.record({ k: ref });
  return fc
    .record({ properties: onK, patternProperties: onK, dependentSchemas: onK, allOf: refs, anyOf: refs, oneOf: refs }, { requiredKeys: [] })
    .map((node) => ({ required: ['z'], ...node }));
}

const graph = (node: (count: number) => fc.Arbitrary<Schema>): fc.Arbitrary<JsonSchema> =>
  fc.integer({ min: 1, max: 5 }).chain((count) =>
    fc.array(node(count), { minLength: count, maxLength: count }).map((nodes) => ({ $ref: '#/$defs/n0', $defs: Object.fromEntries(nodes.map((item, index) => [`n${index}`, item])) })),
  );

// params up to 64 deep along names and positions the schemas use (and one they do not), with a sibling here and there
const params = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom('k', 'j', 'q', 'z'), fc.nat(2)), fc.boolean()), { maxLength: 63 })
  .chain((steps) =>
    fc.constantFrom<unknown>(0, 's', null, {}, [], { k: 1 }).map((leaf) =>
      steps.reduceRight<unknown>((inner, [step, sibling]) => {
        if (typeof step === 'number') return [...Array.from({ length: step }, () => (sibling ? { j: 0 } : 0)), inner];
        return sibling ? { [step]: inner, j: [0] } : { [step]: inner };
      }, leaf),
    ),
  )
  .map((inner) => ({ k: inner }));

const cost = (schema: JsonSchema) => paramsSchemaCost(schema, { matches: re2Matches });

describe('paramsSchemaCost', () => {
  describe('when it accepts a schema', () => {
    it('ajv applies no subschema to one value more often than it counted, at any depth up to 64', () => {
      let accepted = 0;
      fc.assert(
        fc.property(graph(anyNode), fc.array(params, { minLength: 1, maxLength: 3 }), (schema, samples) => {
          const { checksPerValue, problem } = cost(schema);
          if (problem !== undefined) return;
          accepted++;
          expect(checksPerValue).toBeLessThanOrEqual(MAX_CHECKS_PER_VALUE);
          for (const data of samples) expect(mostApplications(schema, data)).toBeLessThanOrEqual(checksPerValue);
        }),
        { numRuns: runs(300) },
      );
      // the generator makes schemas the check accepts, not only ones it refuses
      expect(accepted).toBeGreaterThan(30);
    });
  });

  describe('when it refuses a schema', () => {
    it('ajv really applies a subschema to one value more than the bound allows, or never ends', () => {
      let refused = 0;
      fc.assert(
        fc.property(graph(failingNode), (schema) => {
          const { problem } = cost(schema);
          if (problem === undefined) return;
          refused++;
          // the value the check found over the bound, `depth` deep along `k`, holding a `k` for dependentSchemas
          let data: unknown = { k: 0 };
          for (let level = 0; level < problem.depth; level++) data = { k: data };
          if (problem.kind === 'loop') expect(() => mostApplications(schema, data)).toThrow(RangeError);
          else expect(mostApplications(schema, data)).toBeGreaterThan(MAX_CHECKS_PER_VALUE);
        }),
        { numRuns: runs(300) },
      );
      expect(refused).toBeGreaterThan(0);
    });
  });
});
