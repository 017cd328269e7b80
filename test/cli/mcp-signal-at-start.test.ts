// memz23, fixm25: `hldp mcp` caught SIGTERM and SIGINT only once it served on stdio: a client's stop (or Ctrl-C) sent
// during its start met Node's default and ended the process mid-start, its row in the store's roll of live instances
// never marked left. It now catches them from its first line (test/cli/signal-at-start.test.ts, beside serve's); one
// that comes once it serves stops serving and closes the gateway.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { instanceRoll, useServiceHome } from '../helpers/serve-process.js';
import { startService } from '../helpers/starting-service.js';

const home = useServiceHome('info');

describe('hldp mcp stopped by a signal', () => {
  it('sent as soon as it serves: stops serving, closes the gateway, its row marked left, exit 0', { timeout: 120_000 }, async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/echo/TOOL.hdlp': makeToolYaml('echo') });
    const mcp = startService(home, ['mcp', '--repo', repo, '--as-local']);
    await mcp.said(/"msg":"MCP server on stdio"/);
    mcp.child.kill('SIGTERM');
    expect(await mcp.exit, mcp.stderr()).toEqual([0, null]);
    expect(mcp.stderr()).not.toContain('while starting');
    expect(instanceRoll(home)).toEqual([{ instance: expect.stringContaining(`pid ${mcp.child.pid} `), left_ms: expect.any(Number) }]);
  });
});
