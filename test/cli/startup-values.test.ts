// Review R, R6: `hldp serve --port 99999` failed with Node's RangeError after the store was opened, and
// HLDP_LOG_LEVEL=shouty with pino's message (`hldp serve`) or not at all (`hldp scan` exited 0), where HLDP_PORT and the
// config file's log_level are refused naming the setting and what it may be.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();
const LEVELS = 'fatal, error, warn, info, debug, trace, silent';
const GATEKEEPER_TOKEN = 'a-long-random-secret-for-tests';

describe('values an operator gives at start', () => {
  describe('when a port is out of range', () => {
    it('refuses --port as HLDP_PORT is refused, before anything is opened (exit 2)', async () => {
      const [flag, variable, gatekeeper] = await Promise.all([
        runCli(['serve', '--port', '99999'], { env: home.env }),
        runCli(['serve'], { env: { ...home.env, HLDP_PORT: '99999' } }),
        runCli(['gatekeeper', '--port', '99999'], { env: { ...home.env, HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN } }),
      ]);
      expect(variable).toMatchObject({ code: 2, stderr: "hldp serve: HLDP_PORT: must be an integer from 0 to 65535, got '99999'\n" });
      expect(flag).toMatchObject({ code: 2, stdout: '', stderr: "hldp serve: --port: must be an integer from 0 to 65535, got '99999'\n" });
      expect(gatekeeper).toMatchObject({ code: 2, stderr: "hldp gatekeeper: --port: must be an integer from 0 to 65535, got '99999'\n" });
      expect(existsSync(join(home.path, 'data'))).toBe(false);
    });
  });

  describe('when HLDP_LOG_LEVEL is not a level', () => {
    it.each([
      ['serve', []],
      ['scan', ['--json']],
      ['mcp', []],
      ['gatekeeper', ['--port', '0']],
    ])('hldp %s refuses it naming the levels, as the config file\'s log_level (exit 2)', async (command, args) => {
      const run = await runCli([command, ...args], { env: { ...home.env, HLDP_LOG_LEVEL: 'shouty', HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN }, input: '' });
      expect(run).toMatchObject({ code: 2, stdout: '', stderr: `hldp ${command}: HLDP_LOG_LEVEL: must be one of: ${LEVELS}, got 'shouty'\n` });
    });

    it('is the same list of levels the config file is checked against', async () => {
      const file = join(home.path, 'config.yaml');
      const { writeFile } = await import('node:fs/promises');
      await writeFile(file, 'log_level: shouty\n');
      const run = await runCli(['scan', '--config', file], { env: home.env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`'log_level' must be one of: ${LEVELS}`);
    });
  });
});
