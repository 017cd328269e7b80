import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-cost-');

const withSchema = (lines: string[]): string => makeToolYaml('demo', { params_schema: ['', ...lines].join('\n') });

// review V, V4's leftover: a schema ajv's work would multiply on with each level of the params is named with the line
// of the subschema reached too often (or the reference that loops) and why, before a commit serves it
describe('hldp validate', () => {
  describe.each([
    [
      'a recursion through two branches of oneOf',
      ['  type: object', '  properties:', "    expr: {$ref: '#/$defs/expr'}", '  $defs:', '    expr:', '      oneOf:', "        - {properties: {arg: {$ref: '#/$defs/expr'}}}", "        - {properties: {arg: {$ref: '#/$defs/expr'}}}"],
      12,
      /'params_schema\.\$defs\.expr' would be applied more than 16 times to one value \d+ levels deep in the params, reached from 'params_schema\.\$defs\.expr\.oneOf\.\d\.properties\.arg' and 'params_schema\.\$defs\.expr\.oneOf\.\d\.properties\.arg'/,
    ],
    [
      'a shorthand parameter that is both a property and a pattern of its own recursion',
      ['  node: {type: object, properties: {k: {$ref: "#/properties/node"}}, patternProperties: {"^k": {$ref: "#/properties/node"}}}'],
      7,
      /'params_schema\.node' would be applied more than 16 times to one value/,
    ],
    [
      'a reference that leads back to itself without going into the params',
      ['  type: object', "  anyOf: [{$ref: '#/$defs/again'}]", '  $defs:', "    again: {allOf: [{$ref: '#'}]}"],
      10,
      /'params_schema\.\$defs\.again\.allOf\.0' leads back to 'params_schema' through 'anyOf', '\$ref', 'allOf' without going into a value of the params/,
    ],
  ])('when a params schema has %s', (_case, lines, line, message) => {
    it('names the file, the line and why, and fails', async () => {
      await writeFiles(folder.path, { 'tools/demo/TOOL.hdlp': withSchema(lines) });
      const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout).toMatch(new RegExp(`^tools/demo/TOOL\\.hdlp:${line}:\\d+: error: `, 'm'));
      expect(run.stdout).toMatch(message);
      expect(run.code).toBe(1);
    });
  });

  it('passes a recursion through one branch at each level, and a tree of two properties', async () => {
    await writeFiles(folder.path, {
      'tools/demo/TOOL.hdlp': withSchema(['  type: object', '  properties:', "    tree: {$ref: '#/$defs/tree'}", '  $defs:', '    tree:', "      anyOf: [{type: 'null'}, {type: object, properties: {left: {$ref: '#/$defs/tree'}, right: {$ref: '#/$defs/tree'}}}]"]),
    });
    const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.stdout).not.toContain('error');
    expect(run.code).toBe(0);
  });
});
