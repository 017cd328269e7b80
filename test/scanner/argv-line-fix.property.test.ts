import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { runs } from '../helpers/property-runs.js';

// userZ7, F13: `argv: "tar czf {out} {folder}"` was told only that argv must be a list. It is now shown the list it would
// be; whatever words the line holds (placeholders, numbers, YAML's words, signs), that list, pasted in, is read by
// YAML as exactly those words, each one argument.

const SHELL_SYNTAX = /[|&;<>$`\\'"()*?~]/;
const word = fc.oneof(
  fc.constantFrom('tar', 'czf', '{out}', '{folder}', '--', '-n', '1.50', '10', 'null', 'true', 'No', '.inf', '@x', '%y', ':z', 'a:b', '#c', '-', '[x]', '{+path}', '=v', '!tag', '&a', 'é', '天气'),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 6 }),
).filter((text) => !/\s/.test(text) && !SHELL_SYNTAX.test(text));

const definition = (line: string): string =>
  `name: demo\ndisplay: d\nintent: does a thing\nmethod: run\nexecutor: shell\nparams_schema: {}\nshell:\n  argv: ${JSON.stringify(line)}\nauthor: A\ncreated: 2026-12-06\nwhy: w\n`;

describe('a one-line shell.argv (property-based)', () => {
  it('is shown a list that YAML reads as its words', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        const parsed = parseToolDefinition({ path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'x', content: Buffer.from(definition(words.join(' '))) });
        const message = parsed.diagnostics.find((diagnostic) => diagnostic.message.startsWith("'shell.argv' must be"))?.message ?? '';
        const shown = /; write it as a list, one argument each: argv: (\[.*\])$/.exec(message)?.[1];
        expect(shown, message).toBeDefined();
        expect(parse(shown!)).toEqual(words);
      }),
      { numRuns: runs(200) },
    );
  });
});
