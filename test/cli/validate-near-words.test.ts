import { describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-near-words-');

const tool = (lines: string[]): string => `${lines.join('\n')}\n`;

// review W, W6: `executor: shel`, `constraint:` and `auther:` were given the whole allowed list and no "did you mean",
// and `require_confirm: yes` was told "must be boolean" with no word that YAML 1.2 reads yes as text
describe('hldp validate', () => {
  describe('when a field name or an executor is a typo of an allowed one', () => {
    it('names the one it most likely meant, at its line', async () => {
      await writeFiles(folder.path, {
        'tools/typos/TOOL.hdlp': tool([
          'name: typos', 'display: D', 'intent: does a thing', 'method: run', 'executor: shel', 'shell: { argv: [echo, hi] }',
          'params_schema: {}', 'constraint: { timeout_ms: 1000 }', 'auther: A', 'created: 2026-12-04', 'why: w', 'constraints: { require_confirm: yes }',
        ]),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      const lines = run.stdout.trim().split('\n').filter((line) => line.startsWith('tools/'));
      expect(lines).toEqual(expect.arrayContaining([
        "tools/typos/TOOL.hdlp:5:11: error: 'executor' must be one of: shell, gatekeeper, hldp-api, git-forgejo, mcp; did you mean 'shell'?",
        expect.stringMatching(/^tools\/typos\/TOOL\.hdlp:8:1: error: unknown field 'constraint'; did you mean 'constraints'\?; allowed: name, /),
        expect.stringMatching(/^tools\/typos\/TOOL\.hdlp:9:1: error: unknown field 'auther'; did you mean 'author'\?; allowed: name, /),
        "tools/typos/TOOL.hdlp:12:33: error: 'constraints.require_confirm' must be boolean: YAML 1.2 (how this file is read) reads yes as text, not a boolean; write true",
      ]));
      expect(run.code).toBe(1);
    });
  });

  describe('when a field name is near no allowed one', () => {
    it('gives the allowed list and guesses nothing', async () => {
      await writeFiles(folder.path, {
        'tools/far/TOOL.hdlp': tool(['name: far', 'display: D', 'intent: does a thing', 'method: run', 'executor: shell', 'shell: { argv: [echo, hi] }', 'params_schema: {}', 'author: A', 'created: 2026-12-04', 'why: w', 'colour: blue']),
      });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      const line = run.stdout.split('\n').find((text) => text.startsWith('tools/far/'));
      expect(line).toMatch(/^tools\/far\/TOOL\.hdlp:11:1: error: unknown field 'colour'; allowed: name, /);
      expect(line).not.toContain('did you mean');
    });
  });
});
