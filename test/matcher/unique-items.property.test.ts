import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateItems } from '../../src/matcher/unique-items.js';
import { createParamsValidator } from '../../src/matcher/validate-params.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// Review V, V4: `uniqueItems` is checked by one pass over the items' canonical texts instead of ajv's comparison of
// every pair. The verdict, and the pair it names, must be ajv's own: ajv's pairwise check (an array schema without
// `items`) is the reference.

const reference = new Ajv2020({ allErrors: true, strict: false }).compile({ type: 'array', uniqueItems: true });
const ajvPair = (items: unknown[]): { i: number; j: number } | undefined =>
  reference(items) ? undefined : (reference.errors!.find((error) => error.keyword === 'uniqueItems')!.params as { i: number; j: number });

// JSON's equality, plainly: ajv's deep-equal calls an object's own `toString` or `valueOf` member when it is not
// Object.prototype's, and throws a TypeError on JSON's {"toString": ""}
const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
};
const jsonPair = (items: unknown[]): { i: number; j: number } | undefined => {
  for (let i = items.length - 1; i > 0; i--) for (let j = i - 1; j >= 0; j--) if (jsonEqual(items[i], items[j])) return { i, j };
  return undefined;
};
// ajv's verdict, or undefined where its deep-equal throws
const ajvOrNothing = <T>(judge: () => T): T | undefined => {
  try {
    return judge();
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
};

// the same value with every object's keys in reverse order: equal to JSON, written differently
const reordered = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reordered(item)]));
};

// values JSON.parse gives that JSON.stringify blurs (1e400 is Infinity, written as null) or that look alike
const awkward = fc.constantFrom<unknown>(0, -0, Infinity, -Infinity, null, 1, '1', [null], [Infinity], { a: null }, { a: Infinity }, {}, [], '', 'null', true, [1, [2]], [[1], 2]);
const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), awkward);
// few distinct values picked many times, some rewritten: duplicates are common
const items = fc
  .tuple(fc.array(value, { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 14 }))
  .map(([pool, picks]) => picks.map(([pick, rewrite]) => (rewrite ? reordered(pool[pick % pool.length]) : structuredClone(pool[pick % pool.length]))));

describe('uniqueItems', () => {
  it('finds the pair of equal items ajv names, or none where ajv finds none', () => {
    fc.assert(
      fc.property(items, (array) => {
        const pair = duplicateItems(array);
        expect(pair).toEqual(jsonPair(array));
        const ajvs = ajvOrNothing(() => ({ pair: ajvPair(array) }));
        if (ajvs !== undefined) expect(pair).toEqual(ajvs.pair);
      }),
      { numRuns: runs(2000) },
    );
  });

  it('judges a params array as ajv does, whatever its items schema', () => {
    const validator = createParamsValidator();
    const itemSchemas = [undefined, { type: 'object' }, { type: 'array' }, { type: ['array', 'object', 'string', 'number', 'boolean', 'null'] }];
    const tools = itemSchemas.map((item, position) => {
      const files = { type: 'array', uniqueItems: true, ...(item ? { items: item } : {}) };
      return makeToolDefinition({ name: `tool-${position}`, params_schema: { type: 'object', properties: { files } } });
    });
    const references = tools.map((tool) => new Ajv2020({ allErrors: true, strict: false }).compile(tool.params_schema));
    fc.assert(
      fc.property(fc.nat({ max: tools.length - 1 }), items, (position, array) => {
        const expected = ajvOrNothing(() => references[position]!({ files: array }));
        const checked = validator.validate(tools[position]!, { files: array });
        if (expected !== undefined) expect(checked.valid).toBe(expected);
      }),
      { numRuns: runs(500) },
    );
  });

  it('refuses two equal objects with a "toString" member, on which ajv\'s own deep-equal threw a TypeError', () => {
    const tool = makeToolDefinition({ params_schema: { type: 'object', properties: { files: { type: 'array', uniqueItems: true } } } });
    expect(() => reference([{ toString: '' }, { toString: '' }])).toThrow(TypeError);
    const checked = createParamsValidator().validate(tool, JSON.parse('{"files": [{"toString": ""}, {"valueOf": 1}, {"toString": ""}]}'));
    expect(checked).toMatchObject({ valid: false, problems: [{ param: 'files', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' }] });
  });

  it('refuses two "__proto__" strings, which ajv\'s own hash of string items let through', () => {
    const tool = makeToolDefinition({ params_schema: { type: 'object', properties: { names: { type: 'array', uniqueItems: true, items: { type: 'string' } } } } });
    const checked = createParamsValidator().validate(tool, { names: ['__proto__', 'a', '__proto__'] });
    expect(checked).toMatchObject({ valid: false, problems: [{ param: 'names', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' }] });
  });

  it('checks uniqueItems wherever the schema puts it: nested, behind $ref and anyOf', () => {
    const tool = makeToolDefinition({
      params_schema: {
        type: 'object',
        $defs: { tags: { type: 'array', uniqueItems: true, items: { type: 'object' } } },
        properties: { groups: { type: 'array', items: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/tags' }] } } },
      },
    });
    const validator = createParamsValidator();
    expect(validator.validate(tool, { groups: ['x', [{ n: 2 }, { n: 3 }]] }).valid).toBe(true);
    const checked = validator.validate(tool, { groups: ['x', [{ n: 2 }, { n: 2 }]] });
    expect(checked.valid ? [] : checked.problems).toContainEqual({ param: 'groups.1', message: 'must NOT have duplicate items (items ## 0 and 1 are identical)' });
  });

  it('compares the items after their defaults are filled in, as ajv\'s own keyword does', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'object', properties: { n: { type: 'number', default: 1 } } } } } };
    const params = { tags: [{}, { n: 1 }] };
    const expected = new Ajv2020({ allErrors: true, strict: false, useDefaults: true }).compile(schema)(structuredClone(params));
    expect(expected).toBe(false);
    expect(createParamsValidator().validate(makeToolDefinition({ params_schema: schema }), params).valid).toBe(false);
  });
});
