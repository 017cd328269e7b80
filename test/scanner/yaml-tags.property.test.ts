import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolDefinition } from '../../src/scanner/index.js';
import { parseYamlFast } from '../../src/scanner/yaml-fast.js';
import { makeToolYaml } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// Review R, R13: `display: !!js/function "function(){}"` was accepted as the string inside, the unknown tag dropped
// without a word. Whatever tag a definition holds outside the YAML 1.2 core schema, wherever it is written, both
// readers refuse it: the fast reader gives the text up, and `yaml` reports a YAML_SYNTAX error at the tag itself.

const PATH = 'tools/demo/TOOL.hdlp';
const CORE = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq']);

const tag = fc
  .tuple(fc.constantFrom('!!', '!'), fc.stringMatching(/^[a-z][a-z0-9_/-]{0,12}$/))
  .filter(([prefix, name]) => !(prefix === '!!' && CORE.has(name)))
  .map(([prefix, name]) => `${prefix}${name}`);
const value = fc.constantFrom('hello', '"function(){}"', "'x'", '42', 'true');

/** Where in a definition the tagged value goes: the text, and the line and column the tag starts at. */
const placements: ((tagged: string) => { overrides: Record<string, string>; line: number; column: number })[] = [
  (tagged) => ({ overrides: { display: tagged }, line: 2, column: 10 }),
  (tagged) => ({ overrides: { why: tagged }, line: 9, column: 6 }),
  (tagged) => ({ overrides: { params_schema: `\n  q:\n    type: string\n    description: ${tagged}` }, line: 9, column: 18 }),
  (tagged) => ({ overrides: { aliases: `\n  - other\n  - ${tagged}` }, line: 12, column: 5 }),
  (tagged) => ({ overrides: { aliases: `[other, ${tagged}]` }, line: 10, column: 18 }),
];

describe('a definition holding a YAML tag outside the core schema', () => {
  it('is refused at the tag by both readers, whatever the tag and wherever it is written', () => {
    fc.assert(
      fc.property(tag, value, fc.nat(placements.length - 1), (written, scalar, which) => {
        const { overrides, line, column } = placements[which]!(`${written} ${scalar}`);
        const text = makeToolYaml('demo', overrides);
        expect(parseYamlFast(text), text).toBeUndefined();
        for (const fastYaml of [true, false]) {
          const parsed = parseToolDefinition({ path: PATH, folder: 'demo', oid: 'oid', content: Buffer.from(text) }, { fastYaml });
          expect(parsed.tool, text).toBeNull();
          expect(parsed.diagnostics.find((diagnostic) => diagnostic.code === 'YAML_SYNTAX'), text).toMatchObject({ line, column, severity: 'error', message: expect.stringContaining(`'${written}'`) });
        }
      }),
      { numRuns: runs(200) },
    );
  });
});
