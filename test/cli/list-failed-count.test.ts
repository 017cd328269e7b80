import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-list-failed-');

// review userU, F2: 17 broken files were "19 definition(s) failed to load", one count per error
describe('hldp list', () => {
  describe('when a broken definition holds several errors', () => {
    it('counts the definitions that failed to load, not their errors', async () => {
      const repo = await initRepository(join(folder.path, 'repo'));
      await commitFiles(repo, {
        'tools/good/TOOL.hdlp': makeToolYaml('good'),
        // two errors in one file: 'intent' missing, 'intnet' unknown
        'tools/typo/TOOL.hdlp': makeToolYaml('typo').replace('intent:', 'intnet:'),
        'tools/other/TOOL.hdlp': makeToolYaml('elsewhere'),
      });
      const scan = JSON.parse((await runCli(['scan', '--repo', repo, '--json'], { env: folder.cliEnv() })).stdout) as { errors: Array<{ file: string }> };
      expect(scan.errors.length).toBe(3);
      const run = await runCli(['list', '--repo', repo], { env: folder.cliEnv() });
      expect(run.stdout).toMatch(/^good /m);
      expect(run.stderr).toContain('2 definition(s) failed to load; run hldp scan to see them');
      expect(run.code).toBe(0);
    });
  });
});
