import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { runs } from '../helpers/property-runs.js';

// review R, R5: a file's errors came in stages. Whatever is wrong with the fields a check does not read (any value,
// any shape, under any of them), an unknown placeholder in a sound argv is reported in the same run, at its line.

const FIELDS = ['display', 'intent', 'author', 'created', 'why', 'constraints', 'aliases', 'examples', 'group', 'unlisted', 'access', 'colour'];

const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(null), fc.constant(''));

describe('parseToolDefinition with a broken field beside an unknown placeholder (property-based)', () => {
  it('reports the placeholder whatever else is broken, and never fails to check the file', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...FIELDS), anyValue, { minKeys: 1, maxKeys: 4 }), (broken) => {
        const definition = {
          name: 'demo', display: 'D', intent: 'does a thing', method: 'run', executor: 'shell',
          shell: { argv: ['echo', '{nope}'] }, params_schema: { word: { type: 'string' } },
          author: 'A', created: '2026-12-04', why: 'w', ...broken,
        };
        const text = stringify(definition);
        const parsed = parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'oid', content: Buffer.from(text) });
        expect(parsed.tool).toBeNull();
        expect(parsed.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain('PARSE_FAILED');
        const placeholder = parsed.diagnostics.filter((diagnostic) => diagnostic.code === 'UNKNOWN_PLACEHOLDER');
        expect(placeholder.map((diagnostic) => diagnostic.message)).toEqual(["placeholder 'nope' is not a parameter in 'params_schema' (declared: word); to pass a literal {nope} (curl -w \"%{http_code}\", jq '{name}'), use shell.script: argv has no escape for braces, a script's braces are the shell's own"]);
        const argvLine = text.split('\n').findIndex((line) => line.includes('{nope}')) + 1;
        expect(placeholder[0]!.line).toBe(argvLine);
      }),
      { numRuns: runs(200) },
    );
  });
});
