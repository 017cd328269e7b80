import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { COMPONENT_SCHEMAS } from '../../src/openapi/index.js';
import { compileShapeChecker } from '../../src/scanner/index.js';

// the package's own schemas are compiled without the meta-schema check (`ownSchema`): this test is that check
const metaValidator = new Ajv2020({ strict: false, validateFormats: false });
const files = readdirSync('schemas').filter((name) => name.endsWith('.schema.json'));

describe('our own schemas', () => {
  describe('when checked against the JSON Schema 2020-12 meta-schema', () => {
    it.each(files)('schemas/%s is valid JSON Schema', (name) => {
      const schema = JSON.parse(readFileSync(join('schemas', name), 'utf8')) as object;
      expect(metaValidator.validateSchema(schema), JSON.stringify(metaValidator.errors)).toBe(true);
    });

    it.each(Object.keys(COMPONENT_SCHEMAS))('the OpenAPI document\'s %s is valid JSON Schema', (name) => {
      const schema = COMPONENT_SCHEMAS[name as keyof typeof COMPONENT_SCHEMAS] as object;
      expect(metaValidator.validateSchema(schema), JSON.stringify(metaValidator.errors)).toBe(true);
    });
  });

  describe('when a schema is not our own', () => {
    it('is still checked against the meta-schema when compiled', () => {
      expect(() => compileShapeChecker({ type: 'object', properties: { a: { type: 'no-such-type' } } }, 'the arguments')).toThrow(/schema is invalid/);
    });
  });
});
