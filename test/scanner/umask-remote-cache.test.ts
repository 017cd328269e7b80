import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { servedRepository } from '../helpers/served-repository.js';

// Review Z12, finding 4: under umask 002 (Debian/Ubuntu's default for a user with a private group), the second `hldp scan`
// of a remote refused the cache the first one made — its clone folder (sources/<key>/repo, made by initClone without a
// mode) was group-writable, which review Z10-2's check refuses — so every start scanned afresh. The cache's folders are
// made 0700 whatever the umask.
let cleanup: (() => Promise<void>) | undefined;
afterAll(async () => cleanup?.());

describe('a remote scanned twice under umask 002', () => {
  it('uses its own cache the second time', async () => {
    const temp = await makeTempDir('hldp-umask-cache-');
    cleanup = temp.cleanup;
    const served = await servedRepository(temp.path);
    await served.push({ 'tools/echo-it/TOOL.hdlp': makeToolYaml('echo-it', { executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }' }) });
    const previous = process.umask(0o002);
    try {
      const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') };
      const first = await runCli(['scan', '--repo', served.url, '--json'], { env });
      const second = await runCli(['scan', '--repo', served.url, '--json'], { env });
      expect(first.code).toBe(0);
      expect(second.code).toBe(0);
      expect(second.stderr).not.toContain('is not used');
    } finally {
      process.umask(previous);
      await served.server.close();
    }
  }, 180_000);
});
