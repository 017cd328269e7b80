// Review R, R16: `hldp match "<4,900 characters>"` answered (exit 0) while POST /v1/match refuses the same intent (400, at
// most 4,000 characters): the CLI now holds the same limit, counted in characters as the API's schema counts them.
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('hldp match', () => {
  describe('when the intent is longer than POST /v1/match takes', () => {
    it('exits 2 saying the limit, and matches nothing', async () => {
      const run = await runCli(['match', '查'.repeat(4001)], { env: home.env, cwd: home.path });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe('hldp match: the intent is 4001 characters; a match takes at most 4000 (as POST /v1/match does): say what you want done in fewer words\n');
    });

    it('still matches an intent of exactly 4000 characters', async () => {
      const run = await runCli(['match', `list the recent commits ${'x'.repeat(4000 - 24)}`, '--json'], { env: home.env, cwd: home.path });
      expect(run.stderr).not.toContain('a match takes at most');
      expect(JSON.parse(run.stdout)).toHaveProperty('found');
    });
  });
});
