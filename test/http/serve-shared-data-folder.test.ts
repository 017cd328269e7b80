// Review N, N8: every gateway a user starts without HLDP_DATA_DIR keeps its receipts, approvals and sessions in the one
// default data folder, whatever repository it serves, and nothing said so.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

describe('hldp serve', () => {
  describe('with the default data folder, after a gateway of another repository used it', () => {
    it('warns that the folder and its records are shared, naming that repository and how to keep apart', async () => {
      const first = await initRepository(join(home.path, 'first'));
      await commitFiles(first, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const second = await initRepository(join(home.path, 'second'));
      await commitFiles(second, { 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      // HLDP_DATA_DIR unset: the default, under XDG_DATA_HOME
      const defaults = { HLDP_DATA_DIR: '', XDG_DATA_HOME: join(home.path, 'xdg') };
      const alone = await home.serve(['--repo', first], defaults);
      await alone.stop();
      expect(alone.stderr()).not.toContain('default data folder');
      const again = await home.serve(['--repo', first], defaults);
      await again.stop();
      expect(again.stderr()).not.toContain('default data folder');
      const other = await home.serve(['--repo', second], defaults);
      await other.stop();
      expect(other.stderr()).toContain(`hldp: WARNING: the default data folder ${join(home.path, 'xdg', 'brush-holder')} is shared by every gateway this user starts without HLDP_DATA_DIR`);
      expect(other.stderr()).toMatch(new RegExp(`also hold those of gateways that served '${first}'.*HLDP_DATA_DIR=<a folder of its own>`));
      // a folder of its own says nothing
      const own = await home.serve(['--repo', second], { HLDP_DATA_DIR: join(home.path, 'own'), XDG_DATA_HOME: join(home.path, 'xdg') });
      await own.stop();
      expect(own.stderr()).not.toContain('default data folder');
    });
  });
});
