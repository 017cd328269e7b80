import { describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-all-errors-');

const tool = (lines: string[]): string => `${lines.join('\n')}\n`;
const head = (name: string): string[] => [`name: ${name}`, 'display: D', 'intent: does a thing', 'method: run', 'executor: shell'];

// review R, R5: an author saw a file's errors in stages (a schema error hid a typo'd keyword, an unknown placeholder waited
// until the other fields were right), and two YAML messages were the library's own words
describe('hldp validate', () => {
  describe('when a file holds several independent errors', () => {
    it('reports them all in one run, each at its field', async () => {
      await writeFiles(folder.path, {
        'tools/schema-error/TOOL.hdlp': tool([...head('schema-error'), 'shell: { argv: [echo, hi] }', 'params_schema:', '  word: { type: strng, requird: true }', 'constraints:', '  timeout_ms: "soon"', 'author: A', 'created: 2026-12-04', 'why: w']),
        'tools/ph/TOOL.hdlp': tool([...head('ph'), 'shell: { argv: [echo, "{nope}"] }', 'params_schema: {}', 'created: 20261204', 'colour: blue', 'why: w']),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout.trim().split('\n').filter((line) => line.startsWith('tools/'))).toEqual([
        "tools/ph/TOOL.hdlp:1:1: error: missing required field 'author'",
        "tools/ph/TOOL.hdlp:6:23: error: placeholder 'nope' is not a parameter in 'params_schema' (declared: none); to pass a literal {nope} (curl -w \"%{http_code}\", jq '{name}'), use shell.script: argv has no escape for braces, a script's braces are the shell's own",
        "tools/ph/TOOL.hdlp:8:10: error: 'created' must be string: YAML read 20261204 as a number; quote it if it is text ('20261204')",
        expect.stringMatching(/^tools\/ph\/TOOL\.hdlp:9:1: error: unknown field 'colour'; allowed: name, /),
        "tools/schema-error/TOOL.hdlp:8:17: error: 'params_schema.word.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'string'?",
        "tools/schema-error/TOOL.hdlp:8:24: error: unknown JSON Schema keyword 'requird' in 'params_schema'; did you mean 'required'?",
        "tools/schema-error/TOOL.hdlp:10:15: error: 'constraints.timeout_ms' must be integer: milliseconds as a whole number, e.g. 30000 for 30 s, not 'soon'",
      ]);
      expect(run.code).toBe(1);
    });
  });

  // review W, W6: ajv stopped at the first meta-schema error, so the second bad keyword of a property waited for the next run
  describe('when one property of params_schema has two bad keywords', () => {
    it('reports both in one run', async () => {
      await writeFiles(folder.path, {
        'tools/two-bad/TOOL.hdlp': tool([...head('two-bad'), 'shell: { argv: [echo, "{n}"] }', 'params_schema:', '  n: { type: integer, required: true, minimum: zero, maxLength: -1 }', 'author: A', 'created: 2026-12-04', 'why: w']),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      const lines = run.stdout.trim().split('\n').filter((line) => line.startsWith('tools/two-bad/'));
      expect(lines).toEqual([
        expect.stringMatching(/^tools\/two-bad\/TOOL\.hdlp:8:\d+: error: 'params_schema\.n\.minimum' /),
        expect.stringMatching(/^tools\/two-bad\/TOOL\.hdlp:8:\d+: error: 'params_schema\.n\.maxLength' /),
      ]);
      expect(run.code).toBe(1);
    });
  });

  describe('when a file holds a second YAML document or a key twice', () => {
    it('says what to remove, at its line, in its own words', async () => {
      await writeFiles(folder.path, {
        'tools/multidoc/TOOL.hdlp': tool([...head('multidoc'), 'shell: { argv: [echo, m] }', 'params_schema: {}', 'author: A', 'created: 2026-12-04', 'why: w', '---', 'name: second']),
        'tools/dupkey/TOOL.hdlp': tool([...head('dupkey'), 'shell: { argv: [echo, m] }', 'params_schema: {}', 'author: A', 'author: B', 'created: 2026-12-04', 'why: w']),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout.trim().split('\n').filter((line) => line.startsWith('tools/'))).toEqual([
        "tools/dupkey/TOOL.hdlp:9:1: error: key 'author' is written twice in one mapping (first at line 8): keep one",
        'tools/multidoc/TOOL.hdlp:11:1: error: a TOOL.hdlp holds one YAML document: remove the `---` at line 11',
      ]);
      expect(run.code).toBe(1);
    });
  });
});
