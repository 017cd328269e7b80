// Review R, R14: `npx hldp serve` in a fresh clone as root (this host, CI) warned that tools write their files into
// the checkout — but they run as nobody, and a git working tree is never given to that user, so every write failed.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/index.js';
import { makeTempDir } from '../helpers/git.js';
import { spawnService } from '../helpers/spawn-service.js';

describe('hldp serve in its own checkout', () => {
  it.runIf(process.getuid?.() === 0)('as root, warns that tools (run as nobody) cannot write in the checkout, naming the setting', async () => {
    const folder = await makeTempDir('hldp-root-checkout-');
    const env = { HLDP_CACHE_DIR: join(folder.path, 'cache'), HLDP_DATA_DIR: join(folder.path, 'data'), HLDP_LOG_LEVEL: 'warn', HLDP_WORKSPACE: PACKAGE_ROOT };
    try {
      const serve = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
      try {
        expect(serve.stderr()).toMatch(/hldp: WARNING: workspace: .* is this gateway's own checkout \(the workspace defaults to the current folder\): tools run as nobody \(sandbox\.run_as\), and a git working tree stays its owner's \(uid 0\), so they cannot write in it; set workspace_root \(or HLDP_WORKSPACE\) to a folder of their own\n/);
        expect(serve.stderr().split('\n').filter((line) => line.startsWith('hldp: WARNING')).join('\n')).not.toContain('tools write their files into it');
      } finally {
        await serve.stop();
      }
    } finally {
      await folder.cleanup();
    }
  }, 120_000);
});
