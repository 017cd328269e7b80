import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeWithBubblewrap } from '../sandbox/support/bubblewrap.js';
import { EVERYTHING, PROJECT_ROOT, writeMcpConfig } from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

// `hldp import mcp` once started a stdio server outside the sandbox, with the author's whole file system in reach,
// while the gateway itself would have started the same server inside it
describeWithBubblewrap('hldp import mcp and the sandbox', () => {
  let temp: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const dir = await makeTempDir('hldp-import-sandbox-');
    cleanups.push(dir.cleanup);
    temp = dir.path;
    await mkdir(join(temp, 'out'));
    const config = await writeMcpConfig(temp, {
      // the server's own package is not declared readable: inside the sandbox it is not there
      hidden: { command: process.execPath, args: [EVERYTHING], sandbox: { filesystem: { read: [dirname(process.execPath)] } } },
      declared: { command: process.execPath, args: [EVERYTHING], sandbox: { filesystem: { read: [PROJECT_ROOT, dirname(process.execPath)] } } },
    });
    env = { HLDP_CACHE_DIR: join(temp, 'cache'), HLDP_DATA_DIR: join(temp, 'data'), HLDP_WORKSPACE: temp, HLDP_CONFIG: config };
  });

  it('starts the server inside the sandbox its config declares, as the gateway would', async () => {
    const run = await runCli(['import', 'mcp', '--server', 'hidden', '--out', join(temp, 'out')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/MCP server 'hidden' could not be started/);
    expect(run.stderr).toMatch(/Cannot find module/);
    expect(await readdir(join(temp, 'out'))).toEqual([]);
  });

  it('drafts from the same server once its config lets the sandbox show it its package', async () => {
    const run = await runCli(['import', 'mcp', '--server', 'declared', '--out', join(temp, 'out'), '--tool', 'echo'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(await readdir(join(temp, 'out'))).toEqual(['mcp_declared_echo']);
  });
});
