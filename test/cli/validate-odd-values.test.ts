import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-odd-values-');

// review R, R13: a day no calendar has was served, and a name YAML typed as a number was "must be string" with no way out
describe('hldp validate', () => {
  describe('when a value is one YAML reads otherwise than its author meant', () => {
    it.each([
      ['a created date no calendar has', 'demo', { created: '2026-02-30' }, "tools/demo/TOOL.hdlp:8:10: error: 'created' is 2026-02-30, a day no calendar has: write an ISO date such as 2026-05-31"],
      ['a thirteenth month', 'demo', { created: '2026-13-01T10:00' }, "tools/demo/TOOL.hdlp:8:10: error: 'created' is 2026-13-01, a day no calendar has: write an ISO date such as 2026-05-31"],
      ['a name YAML reads as a number', '123', {}, "tools/123/TOOL.hdlp:1:7: error: 'name' must be string: YAML read 123 as a number; quote it if it is text ('123')"],
      ['a name YAML reads as a boolean', 'true', {}, "tools/true/TOOL.hdlp:1:7: error: 'name' must be string: YAML read true as a boolean; quote it if it is text ('true')"],
    ])('reports %s at its field, saying what to write', async (_case, name, overrides, line) => {
      await writeFiles(folder.path, { [`tools/${name}/TOOL.hdlp`]: makeToolYaml(name, overrides) });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout.trim().split('\n').filter((text) => text.startsWith('tools/'))).toEqual([line]);
      expect(run.code).toBe(1);
    });

    // review R, R13: `display: !!js/function "…"` was served as the string inside, the tag dropped without a word
    it.each([
      ['!!js/function "function(){}"', "tools/demo/TOOL.hdlp:2:10: error: unknown YAML tag '!!js/function': a definition is plain YAML 1.2, whose tags are !!str, !!int, !!float, !!bool, !!null, !!map, !!seq; remove it and write the value itself (quoted, if it is text)"],
      ['!shout hello', "tools/demo/TOOL.hdlp:2:10: error: unknown YAML tag '!shout': a definition is plain YAML 1.2, whose tags are !!str, !!int, !!float, !!bool, !!null, !!map, !!seq; remove it and write the value itself (quoted, if it is text)"],
      ['!!binary aGk=', "tools/demo/TOOL.hdlp:2:10: error: unknown YAML tag '!!binary': a definition is plain YAML 1.2, whose tags are !!str, !!int, !!float, !!bool, !!null, !!map, !!seq; remove it and write the value itself (quoted, if it is text)"],
      ['!!float three', "tools/demo/TOOL.hdlp:2:10: error: YAML tag '!!float' does not fit the value after it; remove the tag (or write the value it expects)"],
    ])('reports the tag of display: %s at its line', async (display, line) => {
      await writeFiles(folder.path, { 'tools/demo/TOOL.hdlp': makeToolYaml('demo', { display }) });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout.trim().split('\n').filter((text) => text.startsWith('tools/'))).toEqual([line]);
      expect(run.code).toBe(1);
    });

    it('takes a core tag that fits its value', async () => {
      await writeFiles(folder.path, { 'tools/demo/TOOL.hdlp': makeToolYaml('demo', { display: '!!str 123' }) });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.code).toBe(0);
    });

    it('takes a real leap day', async () => {
      await writeFiles(folder.path, { 'tools/demo/TOOL.hdlp': makeToolYaml('demo', { created: '2028-02-29' }) });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.code).toBe(0);
    });
  });
});
