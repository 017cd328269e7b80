import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-env-names-');

// review P, P1: an environment entry is split at its first '=', so the key `BASH_ENV=/ws/evil` set BASH_ENV to
// `/ws/evil=.sh`, past the refusal of loader and shell-startup variables, which compared whole names
describe('hldp validate', () => {
  describe("when a shell.env key holds '='", () => {
    it('reports UNSAFE_ENV_VARIABLE at the key, naming the variable it would set, and exits 1', async () => {
      const env = '{ "BASH_ENV=/ws/evil": ".sh", "GCONV_PATH=/ws/gc": "x" }';
      await writeFiles(folder.path, { 'tools/envkey/TOOL.hdlp': makeToolYaml('envkey', { executor: 'shell', shell: `{ argv: [bash, -c, 'echo "$BASH_ENV"'], env: ${env} }` }) });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/tools\/envkey\/TOOL\.hdlp:\d+:\d+: error: 'shell\.env\.BASH_ENV=\/ws\/evil' may not be set by a tool, even to a fixed value: "BASH_ENV=\/ws\/evil" is not a variable name: an environment entry is split at its first '=', so this would set 'BASH_ENV'/);
      expect(run.stdout).toContain(`"GCONV_PATH=/ws/gc" is not a variable name`);
    });
  });

  describe('when shell.env keys are plain names', () => {
    it('passes', async () => {
      await writeFiles(folder.path, { 'tools/envkey/TOOL.hdlp': makeToolYaml('envkey', { executor: 'shell', shell: `{ argv: [bash, -c, 'echo "$LANG"'], env: { LANG: C.UTF-8 } }` }) });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout).toBe('');
      expect(run.code).toBe(0);
    });
  });
});
