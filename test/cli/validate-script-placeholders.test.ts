import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-script-placeholders-');

const scriptTool = (name: string, script: string): string =>
  makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ script: ${JSON.stringify(script)} }`, params_schema: '{ path: { type: string, required: true }, max-count: { type: integer } }' });

describe('hldp validate', () => {
  describe('when shell.script holds a {param} placeholder naming a parameter', () => {
    it('reports it at the field, naming the variable to read instead', async () => {
      await writeFiles(folder.path, { 'tools/lister/TOOL.hdlp': scriptTool('lister', 'ls -la {path} | head -n {max-count}') });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`tools/lister/TOOL.hdlp:10:18: error: 'shell.script' runs through sh -c as written: '{path}' is not replaced by parameter 'path' (placeholders are filled in shell.argv only); read it from its variable instead, "$HLDP_PARAM_PATH" (in double quotes)`);
      expect(run.stdout).toContain(`'{max-count}' is not replaced by parameter 'max-count' (placeholders are filled in shell.argv only); read it from its variable instead, "$HLDP_PARAM_MAX_COUNT"`);
    });
  });

  describe("when the script's braces are the shell's or awk's own", () => {
    it('passes', async () => {
      // `${dir}` is the script's own variable; a parameter's own name (`${path}`) is read from nothing, which is
      // UNDECLARED_SCRIPT_VARIABLE's (review userZ7, F12: validate-script-variables.test.ts)
      await writeFiles(folder.path, { 'tools/lister/TOOL.hdlp': scriptTool('lister', 'dir="${HLDP_PARAM_PATH}"; ls -la "${dir}" | awk \'{print $1}\' | head -n {count}') });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout).toBe('');
      expect(run.code).toBe(0);
    });
  });
});
