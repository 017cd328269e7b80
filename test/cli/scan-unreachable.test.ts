import { describe, expect, it } from 'vitest';
import { makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-scan-unreachable-');

// `hldp scan` of a remote it could not reach exited 0, printing the cached index: `git push && hldp scan --repo R` passed
// while the push was never read, where POST /v1/scan answers 502 (review R, R16)
describe('hldp scan', () => {
  describe('when the remote cannot be reached and only the last index read is at hand', () => {
    it('prints that index marked stale and exits 2, with and without --json', async () => {
      const served = await folder.serve();
      const commit = await served.push({ 'tools/echo-it/TOOL.hdlp': makeToolYaml('echo-it') });
      const env = folder.cliEnv();
      const fresh = await runCli(['scan', '--repo', served.url, '--json'], { env });
      expect(fresh.code).toBe(0);
      const { scanned_at: read } = JSON.parse(fresh.stdout) as { scanned_at: string };
      await served.server.close();

      const scanned = await runCli(['scan', '--repo', served.url], { env });
      expect(scanned.stdout).toContain(`commit  ${commit}  (stale: cannot reach`);
      expect(scanned.stderr).toContain(`hldp: ${served.url} could not be read (cannot reach`);
      // the time the index was read, not the time this scan failed (review userZ9, U9-6)
      expect(scanned.stderr).toContain(`: what is shown is its index as read at commit ${commit} (${read}), unreachable since `);
      expect(scanned.code).toBe(2);

      const json = await runCli(['scan', '--repo', served.url, '--json'], { env });
      expect(JSON.parse(json.stdout)).toMatchObject({ commit, stale: { reason: expect.stringContaining('cannot reach') }, tools: [{ name: 'echo-it' }] });
      expect(json.code).toBe(2);
    });
  });
});
