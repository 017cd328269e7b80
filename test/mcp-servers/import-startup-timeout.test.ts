// Review R, R14: `hldp import mcp` of a server that never answers initialize said "could not be started: MCP error
// -32001: Request timed out", naming no limit; it now names startup_timeout_ms and its value.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { writeMcpConfig } from './support.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

describe('hldp import mcp', () => {
  describe('when the server never answers initialize', () => {
    it('fails naming startup_timeout_ms and its value', async () => {
      const config = await writeMcpConfig(temp.path, { sleepy: { command: 'sh', args: ['-c', 'sleep 100'], startup_timeout_ms: 2000 } });
      const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_CONFIG: config, HLDP_LOG_LEVEL: 'error' };
      const run = await runCli(['import', 'mcp', '--server', 'sleepy', '--out', join(temp.path, 'tools')], { env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("hldp import: MCP server 'sleepy' could not be started: it did not answer initialize within startup_timeout_ms (2000 ms); raise startup_timeout_ms in its mcp_servers entry if it starts slowly");
    });
  });
});
