// Review R, R14: two tools declaring one alias (or an alias naming another tool) were reported at line 1 of the file,
// not at the alias, and the scan cache kept no alias positions. The conflict is now reported where the alias is written
// in the file whose alias is ignored, by a cold scan, a warm start from the cache, a start onto a newer commit that
// patches the cached scan, and `hldp validate` alike.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

// the alias 'shared' is the second item of a block list: line 12, column 5 of the file makeToolYaml writes
const ZETA = makeToolYaml('zeta', { aliases: '\n  - zeta-other\n  - shared' });
const AT_ALIAS = "tools/zeta/TOOL.hdlp:12:5: warning: alias 'shared' also names tool 'alpha'; it is ignored for 'zeta'";

const aliasWarnings = (stderr: string): string[] => stderr.split('\n').filter((line) => line.includes('ALIAS_CONFLICT') || line.includes("alias '"));

describe('an alias two tools declare', () => {
  describe('when hldp scan reads the repository', () => {
    it('is reported at the later file\'s alias, cold, warm, and after a newer commit is patched onto the cache', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/zeta/TOOL.hdlp': ZETA, 'tools/omega/TOOL.hdlp': makeToolYaml('omega', { aliases: '[omega-other, shared]' }) }, 'two tools, one alias');
      // omega is kept out of 'shared' at its flow list (line 10, column 24)
      const cold = await runCli(['scan', '--repo', repo], { env: home.env });
      expect(aliasWarnings(cold.stderr)).toEqual(["tools/zeta/TOOL.hdlp:12:5: warning: alias 'shared' also names tool 'omega'; it is ignored for 'zeta'"]);
      const warm = await runCli(['scan', '--repo', repo], { env: home.env });
      expect(aliasWarnings(warm.stderr)).toEqual(aliasWarnings(cold.stderr));

      // a newer commit adds a tool earlier by path that names 'shared' too: omega, which held it, keeps it (a newcomer
      // takes no alias in service), and both others are reported at their alias
      await commitFiles(repo, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { aliases: '[shared]' }) }, 'alpha asks for the alias');
      const patched = await runCli(['scan', '--repo', repo], { env: home.env });
      const kept = [
        "tools/alpha/TOOL.hdlp:10:11: warning: alias 'shared' also names tool 'omega'; it is ignored for 'alpha'",
        "tools/zeta/TOOL.hdlp:12:5: warning: alias 'shared' also names tool 'omega'; it is ignored for 'zeta'",
      ];
      expect(aliasWarnings(patched.stderr)).toEqual(kept);
      const again = await runCli(['scan', '--repo', repo], { env: home.env });
      expect(aliasWarnings(again.stderr)).toEqual(kept);
      // a scan with no earlier one to keep gives it to the first by path
      const afresh = await runCli(['scan', '--repo', repo], { env: { ...home.env, HLDP_CACHE_DIR: join(home.path, 'other-cache') } });
      expect(aliasWarnings(afresh.stderr)).toEqual([
        "tools/omega/TOOL.hdlp:10:24: warning: alias 'shared' also names tool 'alpha'; it is ignored for 'omega'",
        AT_ALIAS,
      ]);
    });
  });

  describe('when an alias is another tool\'s name', () => {
    it('hldp validate reports it at the alias in the file that declares it', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, {
        'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { aliases: '\n  - alpha-other\n  - shared' }),
        'tools/shared/TOOL.hdlp': makeToolYaml('shared'),
      });
      const run = await runCli(['validate', repo], { env: home.env, cwd: repo });
      expect(aliasWarnings(run.stdout + run.stderr)).toEqual(["tools/alpha/TOOL.hdlp:12:5: warning: alias 'shared' also names tool 'shared'; it is ignored for 'alpha'"]);
    });
  });
});
