import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { nodeServer, writeMcpConfig } from './support.js';

// Review S, S4: `hldp import mcp` wrote through symlinks in its output folder — a checkout anyone who pushes fills,
// with predictable draft names — so a committed tools/mcp_<server>_<tool> -> ~/.bashrc.d (or, with --force, a
// TOOL.hdlp -> ~/.bashrc) made it write the draft, text the MCP server chooses, wherever the operator may write.
const SERVER = join(import.meta.dirname, 'fixtures', 'cwd-server.mjs');

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let victim: string;

beforeAll(async () => {
  temp = await makeTempDir('hldp-import-links-');
  const config = await writeMcpConfig(temp.path, { files: nodeServer(SERVER) });
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'ws'), HLDP_CONFIG: config, HLDP_LOG_LEVEL: 'error' };
  await mkdir(join(temp.path, 'ws'));
  victim = join(temp.path, 'victim-home');
  await mkdir(join(victim, '.bashrc.d'), { recursive: true });
  await writeFile(join(victim, '.bashrc'), 'the operator\'s own .bashrc\n');
});
afterAll(() => temp.cleanup());

async function importInto(checkout: string, ...more: string[]): Promise<{ code: number; stderr: string }> {
  return runCli(['import', 'mcp', '--server', 'files', '--out', join(checkout, 'tools'), ...more], { env });
}

describe('hldp import mcp and symlinks in its output folder (review S, S4)', () => {
  it("refuses a symlinked draft folder, writing nothing through it", async () => {
    const checkout = join(temp.path, 'checkout-folder');
    await mkdir(join(checkout, 'tools'), { recursive: true });
    await symlink(join(victim, '.bashrc.d'), join(checkout, 'tools', 'mcp_files_where'));
    const run = await importInto(checkout);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(checkout, 'tools', 'mcp_files_where')} is a symlink (to ${join(victim, '.bashrc.d')})`);
    expect(await readdir(join(victim, '.bashrc.d'))).toEqual([]);
  });

  it('refuses a symlinked TOOL.hdlp with --force, leaving its target as it was', async () => {
    const checkout = join(temp.path, 'checkout-file');
    await mkdir(join(checkout, 'tools', 'mcp_files_where'), { recursive: true });
    await symlink(join(victim, '.bashrc'), join(checkout, 'tools', 'mcp_files_where', 'TOOL.hdlp'));
    const run = await importInto(checkout, '--force');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('TOOL.hdlp is a symlink');
    expect(await readFile(join(victim, '.bashrc'), 'utf8')).toBe("the operator's own .bashrc\n");
  });

  it('refuses a symlinked output folder', async () => {
    const checkout = join(temp.path, 'checkout-out');
    await mkdir(checkout);
    await symlink(join(victim, '.bashrc.d'), join(checkout, 'tools'));
    const run = await importInto(checkout);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(checkout, 'tools')} is a symlink`);
    expect(await readdir(join(victim, '.bashrc.d'))).toEqual([]);
  });

  it('still writes, and with --force rewrites, a real draft', async () => {
    const checkout = join(temp.path, 'checkout-real');
    const first = await importInto(checkout);
    expect(first.code, first.stderr).toBe(0);
    const path = join(checkout, 'tools', 'mcp_files_where', 'TOOL.hdlp');
    await writeFile(path, 'edited\n');
    expect((await importInto(checkout)).code).toBe(0);
    expect(await readFile(path, 'utf8')).toBe('edited\n');
    const forced = await importInto(checkout, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(path, 'utf8')).toMatch(/^name: mcp_files_where$/m);
    expect(await readdir(join(checkout, 'tools', 'mcp_files_where'))).toEqual(['TOOL.hdlp']);
  });
});
