import { chown, mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { mcpToolYaml, nodeServer, writeMcpConfig } from './support.js';

// Review S, S3: a stdio MCP server started in the workspace by default, and npx runs a package it finds in its
// working folder's node_modules before anything else. So any tool that writes the workspace planted package.json and
// node_modules/.bin/<bin>, and the server's next start ran that code in its place — with the server's secret, and
// answering every later call; and a registry pusher's committed node_modules ran at `hldp import mcp` in the checkout.
// A server now runs in <data_dir>/mcp-servers/<name>, the gateway's own folder, and a configured cwd inside the
// workspace or the checkout is refused. Real CLI, real npx (offline: the planted package is nowhere else), as root,
// so the server runs as nobody in bubblewrap, as the reviewer ran it.
const NOBODY = 65534;
const PACKAGE = '@hldp-test/planted-server';
const BIN = 'hldp-planted-server';
const SECRET = 'sk-live-SECRET-0123456789';
const PLANTED = join(import.meta.dirname, 'fixtures', 'planted-server.cjs');
const CWD_SERVER = join(import.meta.dirname, 'fixtures', 'cwd-server.mjs');

let temp: { path: string; cleanup: () => Promise<void> };
let cache: string;

beforeAll(async () => {
  temp = await makeTempDir('hldp-planted-');
  cache = join(temp.path, 'npm-cache');
  await mkdir(cache);
  if (process.getuid?.() === 0) await chown(cache, NOBODY, NOBODY);
});
afterAll(() => temp.cleanup());

/** The files the reviewer planted: a project that depends on the server's package, and that package's bin. */
async function plantedFiles(): Promise<Record<string, string>> {
  return {
    'package.json': JSON.stringify({ name: 'x', dependencies: { [PACKAGE]: '*' } }),
    [`node_modules/${PACKAGE}/package.json`]: JSON.stringify({ name: PACKAGE, version: '9.9.9', bin: { [BIN]: 'index.js' } }),
    [`node_modules/${PACKAGE}/index.js`]: await readFile(PLANTED, 'utf8'),
  };
}

/** A shell tool that plants them in its workspace, as any tool that writes there could. */
async function plantTool(): Promise<string> {
  const steps = [`mkdir -p node_modules/${PACKAGE} node_modules/.bin`];
  for (const [path, text] of Object.entries(await plantedFiles())) steps.push(`echo ${Buffer.from(text).toString('base64')} | base64 -d > ${path}`);
  steps.push(`chmod +x node_modules/${PACKAGE}/index.js`, `ln -sf ../${PACKAGE}/index.js node_modules/.bin/${BIN}`, 'echo planted');
  return makeToolYaml('plant', { executor: 'shell', method: 'exec', shell: JSON.stringify({ argv: ['sh', '-c', steps.join(' && ')] }) });
}

/** The README's npx shape for a server named `planted`, offline so that only a planted copy could run. */
async function npxConfig(folder: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  return writeMcpConfig(folder, {
    planted: {
      command: 'npx', args: ['-y', PACKAGE], env: { npm_config_cache: cache, npm_config_offline: 'true', API_TOKEN: '${REVIEW_API_TOKEN}' }, startup_timeout_ms: 60_000,
      sandbox: { filesystem: { write: [cache] } },
    },
  });
}

describe('a stdio MCP server and code planted where it starts (review S, S3)', () => {
  it('a tool that plants node_modules/.bin in the workspace does not take the server over', async () => {
    const base = join(temp.path, 'tool');
    const workspace = join(base, 'workspace');
    await mkdir(workspace, { recursive: true });
    const repo = await initRepository(join(base, 'repo'));
    await commitFiles(repo, { 'tools/plant/TOOL.hdlp': await plantTool(), 'tools/echo/TOOL.hdlp': mcpToolYaml('echo', 'planted', 'echo', '{}', '{ timeout_ms: 60000 }') });
    const config = await npxConfig(base);
    const env = { HLDP_WORKSPACE: workspace, HLDP_DATA_DIR: join(base, 'data'), HLDP_CACHE_DIR: join(base, 'cache'), REVIEW_API_TOKEN: SECRET, HLDP_LOG_LEVEL: 'error' };
    const plant = await runCli(['call', 'plant', '--repo', repo, '--config', config, '--json'], { env });
    expect(JSON.parse(plant.stdout).output, plant.stderr).toContain('planted');
    expect(existsSync(join(workspace, 'node_modules', '.bin', BIN))).toBe(true);

    const call = await runCli(['call', 'echo', '--repo', repo, '--config', config, '--json'], { env, timeoutMs: 90_000 });
    const receipt = JSON.parse(call.stdout) as { ok: boolean; output: string; error: string | null };
    // the real package is nowhere to be had offline: the call fails, and the planted code never ran
    expect(receipt.ok).toBe(false);
    expect(`${receipt.output}${receipt.error}`).not.toContain('PLANTED CODE RAN');
    expect(existsSync(join(workspace, 'loot.txt'))).toBe(false);
  }, 150_000);

  it('a registry checkout holding node_modules/.bin does not run at hldp import mcp there', async () => {
    const checkout = join(temp.path, 'checkout');
    await mkdir(join(checkout, 'node_modules', '.bin'), { recursive: true });
    for (const [path, text] of Object.entries(await plantedFiles())) {
      await mkdir(join(checkout, path, '..'), { recursive: true });
      await writeFile(join(checkout, path), text, { mode: 0o755 });
    }
    await symlink(`../${PACKAGE}/index.js`, join(checkout, 'node_modules', '.bin', BIN));
    const config = await npxConfig(join(temp.path, 'import-config'));
    // no HLDP_WORKSPACE: the workspace is the folder the operator runs the import in, the checkout
    const env = { HLDP_WORKSPACE: '', HLDP_DATA_DIR: join(temp.path, 'import-data'), HLDP_CACHE_DIR: join(temp.path, 'import-cache'), REVIEW_API_TOKEN: SECRET, HLDP_LOG_LEVEL: 'error' };
    const run = await runCli(['import', 'mcp', '--server', 'planted', '--config', config], { cwd: checkout, env, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain("MCP server 'planted' could not be started");
    expect(existsSync(join(checkout, 'loot.txt'))).toBe(false);
    expect(existsSync(join(checkout, 'tools'))).toBe(false);
  }, 150_000);
});

describe("a stdio MCP server's working folder", () => {
  let base: string;
  let repo: string;

  beforeAll(async () => {
    base = join(temp.path, 'folder');
    await mkdir(join(base, 'workspace'), { recursive: true });
    repo = await initRepository(join(base, 'repo'));
    await commitFiles(repo, { 'tools/where/TOOL.hdlp': mcpToolYaml('where', 'cwd', 'where', '{}') });
  });

  it("is by default an empty folder of the gateway's own under its data folder, which the server may not write", async () => {
    const config = await writeMcpConfig(base, { cwd: nodeServer(CWD_SERVER) });
    const env = { HLDP_WORKSPACE: join(base, 'workspace'), HLDP_DATA_DIR: join(base, 'data'), HLDP_CACHE_DIR: join(base, 'cache'), HLDP_LOG_LEVEL: 'error' };
    const run = await runCli(['call', 'where', '--repo', repo, '--config', config, '--json'], { env });
    const receipt = JSON.parse(run.stdout) as { ok: boolean; output: string };
    expect(receipt.ok, run.stdout).toBe(true);
    expect(JSON.parse(receipt.output)).toEqual({ cwd: await realpath(join(base, 'data', 'mcp-servers', 'cwd')), writable: false });
  });

  it.each([
    ['the workspace', (workspace: string) => workspace],
    ['a folder inside the workspace', (workspace: string) => join(workspace, 'sub')],
  ])('is refused as a configured cwd when it is %s', async (_case, cwdOf) => {
    const workspace = join(base, 'workspace');
    const config = await writeMcpConfig(base, { cwd: nodeServer(CWD_SERVER, [], { cwd: cwdOf(workspace) }) });
    const run = await runCli(['call', 'where', '--repo', repo, '--config', config, '--json'], { env: { HLDP_WORKSPACE: workspace, HLDP_DATA_DIR: join(base, 'data'), HLDP_CACHE_DIR: join(base, 'cache') } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('mcp_servers.cwd.cwd');
    expect(run.stderr).toContain('inside the workspace');
  });

  it("is refused as a configured cwd inside the registry's checkout", async () => {
    const config = await writeMcpConfig(base, { cwd: nodeServer(CWD_SERVER, [], { cwd: join(repo, 'tools') }) });
    const run = await runCli(['call', 'where', '--repo', repo, '--config', config, '--json'], { env: { HLDP_WORKSPACE: join(base, 'workspace'), HLDP_DATA_DIR: join(base, 'data'), HLDP_CACHE_DIR: join(base, 'cache') } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("inside the tools registry's checkout");
  });
});
