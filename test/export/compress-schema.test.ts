import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/core/index.js';
import { compressSchema, exportTools, firstSentence, SCHEMA_BUDGET_BYTES, schemaBytes } from '../../src/export/index.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';
import { connectHttp } from '../mcp-front/support.js';

const words = (count: number, seed = 'word') => Array.from({ length: count }, (_, index) => `${seed}${index}`).join(' ');

/** A schema of `count` top-level arguments, each with a long two-sentence description and nested structure. */
function bigSchema(count: number, extra: JsonSchema = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (let index = 0; index < count; index += 1) {
    properties[`arg_${index}`] = {
      type: 'object',
      title: `Argument ${index}`,
      description: `The argument number ${index}. ${words(30)}.`,
      examples: [{ deep: 'x' }],
      properties: { level3: { type: 'object', description: 'Third level. More text here.', properties: { level4: { type: 'string', description: 'Fourth level.' } } } },
    };
  }
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties, required: ['arg_0'], ...extra };
}

describe('compressSchema (seed 003)', () => {
  describe('when the schema fits in 5,000 bytes', () => {
    it('returns it untouched, the same object', () => {
      const schema = { type: 'object', title: 'kept', properties: { a: { type: 'string', description: 'One. Two.' } } };
      expect(compressSchema(schema)).toBe(schema);
    });
  });

  describe('when it is over 5,000 bytes', () => {
    it('drops noise first, and stops there when that is enough', () => {
      const schema = bigSchema(3, { examples: [{ blob: 'x'.repeat(5000) }] });
      const compressed = compressSchema(schema);
      expect(schemaBytes(compressed)).toBeLessThanOrEqual(SCHEMA_BUDGET_BYTES);
      expect(compressed).not.toHaveProperty('$schema');
      expect(compressed).not.toHaveProperty('examples');
      // the next step was not needed: descriptions stay whole
      expect((compressed.properties as Record<string, JsonSchema>).arg_0!.description).toBe(`The argument number 0. ${words(30)}.`);
    });

    it('cuts descriptions to their first sentence next, keeping the nesting', () => {
      const compressed = compressSchema(bigSchema(20));
      const argument = (compressed.properties as Record<string, JsonSchema>).arg_3!;
      expect(argument.description).toBe('The argument number 3.');
      expect(argument).not.toHaveProperty('title');
      expect(argument.properties).toEqual({ level3: { type: 'object', description: 'Third level.', properties: { level4: { type: 'string', description: 'Fourth level.' } } } });
      expect(schemaBytes(compressed)).toBeLessThanOrEqual(SCHEMA_BUDGET_BYTES);
    });

    it('drops $defs next, and every reference into them becomes {}', () => {
      const definitions = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`thing${index}`, { type: 'object', properties: { name: { type: 'string', enum: words(8).split(' ') } } }]));
      const schema = { type: 'object', properties: { thing: { $ref: '#/$defs/thing1', description: 'A thing.' }, count: { type: 'integer' } }, $defs: definitions };
      const compressed = compressSchema(schema);
      expect(compressed).not.toHaveProperty('$defs');
      expect(compressed.properties).toEqual({ thing: {}, count: { type: 'integer' } });
    });

    it('replaces what lies below the third level with {} next (the root is the first, an argument the second)', () => {
      const compressed = compressSchema(bigSchema(60));
      const argument = (compressed.properties as Record<string, JsonSchema>).arg_59!;
      expect(argument.properties).toEqual({ level3: { type: 'object', description: 'Third level.', properties: { level4: {} } } });
    });

    it('replaces anyOf, oneOf and allOf last', () => {
      // branches on the third level, large without any nesting: only dropping them makes the schema fit
      const branch = (index: number) => ({ type: 'string', enum: words(20, `choice${index}_`).split(' ') });
      const schema = { type: 'object', properties: { choice: { description: 'Pick one.', anyOf: Array.from({ length: 40 }, (_, index) => branch(index)) }, other: { type: 'string' } } };
      const compressed = compressSchema(schema);
      expect(compressed.properties).toEqual({ choice: { description: 'Pick one.' }, other: { type: 'string' } });
    });
  });

  describe('whatever the schema (property)', () => {
    const leaf = fc.record({ type: fc.constantFrom('string', 'integer', 'boolean'), description: fc.lorem({ maxCount: 40 }) });
    const node = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.record({ type: fc.constant('object'), description: fc.lorem({ maxCount: 20 }), properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), tie('schema'), { maxKeys: 6 }) }),
        fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 4 }) }),
        fc.record({ type: fc.constant('array'), items: tie('schema') }),
      ),
    }));
    const topLevel = fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), node.schema as fc.Arbitrary<JsonSchema>, { minKeys: 1, maxKeys: 30 });

    it('keeps every top-level argument name, stays valid JSON Schema, and shrinks only what is over budget', () => {
      const ajv = new Ajv2020({ strict: false });
      fc.assert(
        fc.property(topLevel, (properties) => {
          const schema = { type: 'object', properties };
          const compressed = compressSchema(schema, 1500);
          expect(Object.keys(compressed.properties as object)).toEqual(Object.keys(properties));
          expect(() => ajv.compile(compressed)).not.toThrow();
          if (schemaBytes(schema) <= 1500) expect(compressed).toBe(schema);
          else expect(schemaBytes(compressed)).toBeLessThanOrEqual(schemaBytes(schema));
        }),
        { numRuns: runs(150) },
      );
    });
  });
});

describe('firstSentence', () => {
  it.each([
    ['One. Two.', 'One.'],
    ['Reads a file! Then more.', 'Reads a file!'],
    ['读取文件。然后更多。', '读取文件。'],
    ['Version 1.2 is read. Then.', 'Version 1.2 is read.'],
    ['first line\nsecond line', 'first line'],
    ['no end at all', 'no end at all'],
  ])('cuts %j to %j', (text, expected) => {
    expect(firstSentence(text)).toBe(expected);
  });
});

describe('a registry tool whose params schema is over 5,000 bytes', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  // 40 arguments, each an object whose deepest field (the fourth level) carries a constraint
  const properties = Object.fromEntries(
    Array.from({ length: 40 }, (_, index) => [
      `setting_${index}`,
      { type: 'object', description: `Setting ${index} of the deployment. ${words(15)}.`, properties: { nested: { type: 'object', properties: { value: { type: 'integer', maximum: 5 } } } } },
    ]),
  );
  const definition = (schema: object) =>
    ['name: big', 'display: big', 'intent: takes many settings', 'method: run', 'executor: shell', 'shell: { argv: [echo, ran] }', `params_schema: ${JSON.stringify(schema)}`, 'author: TEST-001', 'created: 2026-05-31', 'why: a wide schema', ''].join('\n');

  it('is listed shrunk over MCP and in exports, its argument names all there, and validated whole', async () => {
    const temp = await makeTempDir('hldp-big-schema-');
    cleanups.push(temp.cleanup);
    const repo = await initRepository(join(temp.path, 'repo'));
    const schema = { type: 'object', properties };
    await commitFiles(repo, { 'tools/big/TOOL.hdlp': definition(schema) });
    const connected = await connectHttp(repo);
    cleanups.push(connected.close);
    const listed = (await connected.client.listTools()).tools.find((tool) => tool.name === 'big')!;
    expect(schemaBytes(schema)).toBeGreaterThan(SCHEMA_BUDGET_BYTES);
    expect(schemaBytes(listed.inputSchema)).toBeLessThan(schemaBytes(schema));
    expect(Object.keys(listed.inputSchema.properties!)).toEqual(Object.keys(properties));
    expect((listed.inputSchema.properties as Record<string, JsonSchema>).setting_0).toEqual({ type: 'object', description: 'Setting 0 of the deployment.', properties: { nested: { type: 'object', properties: { value: {} } } } });
    const openai = exportTools(connected.gateway.registry.index, 'openai').tools.find((tool) => tool.function.name === 'big')!;
    expect(openai.function.parameters).toEqual(listed.inputSchema);
    // the listing lost the maximum; the call is still checked against it
    const refused = await connected.gateway.call('big', { setting_0: { nested: { value: 10 } } });
    expect(refused).toMatchObject({ kind: 'invalid_params', code: 'INVALID_PARAMS' });
    expect(await connected.gateway.call('big', { setting_0: { nested: { value: 5 } } })).toMatchObject({ kind: 'receipt', receipt: { ok: true } });
  });
});
