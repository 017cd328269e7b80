import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { runs } from '../helpers/property-runs.js';

// review userY, Y2: the first error of an `http:` block hid its others. Whatever is wrong with the block's other fields
// (any value, any shape, an unknown key, a missing path), a `query` naming no parameter is reported in the same run, at its line.

const FIELDS = ['method', 'path', 'headers', 'body', 'api', 'bodyy', 'Path'];

const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(null), fc.constant(''), fc.constantFrom('post', 'GET /x', 'items/{id}', 'FETCH', '{nope}', 'id'));

describe('parseToolDefinition with a broken http field beside a query naming no parameter (property-based)', () => {
  it('reports the query parameter whatever else of the block is broken, and never fails to check the file', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...FIELDS), anyValue, { maxKeys: 4 }), fc.boolean(), (broken, withPath) => {
        const http = { ...(withPath ? { path: '/items' } : {}), ...broken, query: ['nope'] };
        const definition = {
          name: 'demo', display: 'D', intent: 'does a thing', method: 'get', executor: 'hldp-api',
          params_schema: { id: { type: 'string' } }, http, author: 'A', created: '2026-12-04', why: 'w',
        };
        const text = stringify(definition);
        const parsed = parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'oid', content: Buffer.from(text) });
        expect(parsed.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain('PARSE_FAILED');
        const query = parsed.diagnostics.filter((diagnostic) => diagnostic.message.startsWith("query parameter 'nope'"));
        expect(query.map((diagnostic) => diagnostic.message)).toEqual(["query parameter 'nope' is not a parameter in 'params_schema' (declared: id)"]);
        const queryLine = text.split('\n').findIndex((line) => /^\s+- nope$/.test(line)) + 1;
        expect(query[0]!.line).toBe(queryLine);
        expect(parsed.tool).toBeNull();
      }),
      { numRuns: runs(200) },
    );
  });
});
