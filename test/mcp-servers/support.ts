import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { freePort } from '../helpers/free-port.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const require = createRequire(import.meta.url);

/** The entry point of an npm package's `bin`, run with this Node. */
function binOf(packageName: string): string {
  const manifest = require.resolve(`${packageName}/package.json`);
  const { bin } = require(manifest) as { bin: string | Record<string, string> };
  return join(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]!);
}

/** The official reference servers from npm (devDependencies), and our recording fixture. */
export const EVERYTHING = binOf('@modelcontextprotocol/server-everything');
export const FILESYSTEM = binOf('@modelcontextprotocol/server-filesystem');
export const RECORDER = fileURLToPath(new URL('./fixtures/recorder-server.mjs', import.meta.url));
export const DEEP = fileURLToPath(new URL('./fixtures/deep-server.mjs', import.meta.url));

/** This project's folder: where the servers' packages and the fixture live. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A stdio server entry of `mcp_servers` running a Node script. The sandbox shows a server only the system and the
 * workspace: it may read this project (its packages) and write `write`, as an operator would declare it.
 */
export function nodeServer(script: string, args: string[] = [], more: Record<string, unknown> = {}, write: string[] = []): Record<string, unknown> {
  return { command: process.execPath, args: [script, ...args], sandbox: { filesystem: { read: [PROJECT_ROOT, dirname(process.execPath)], write } }, ...more };
}

/** Writes a gateway config file with these `mcp_servers`; returns its path. */
export async function writeMcpConfig(folder: string, servers: Record<string, Record<string, unknown>>, more: Record<string, unknown> = {}): Promise<string> {
  const path = join(folder, 'brush-holder.yaml');
  await writeFile(path, stringify({ mcp_servers: servers, ...more }));
  return path;
}

/** A `TOOL.hdlp` of an `mcp` tool. */
export function mcpToolYaml(name: string, server: string, tool: string, params: string, constraints = '{}', mcp: { idempotent?: boolean } = {}): string {
  return [
    `name: ${name}`,
    `display: ${name}`,
    `intent: calls ${tool} on ${server}`,
    'method: tools/call',
    'executor: mcp',
    `mcp: { server: ${server}, tool: ${JSON.stringify(tool)}${mcp.idempotent === undefined ? '' : `, idempotent: ${mcp.idempotent}`} }`,
    `params_schema: ${params}`,
    `constraints: ${constraints}`,
    'author: TEST-001',
    'created: 2026-05-31',
    `why: tests need ${name}`,
    '',
  ].join('\n');
}

/** server-everything over Streamable HTTP on a free port, as its README starts it (`streamableHttp`, `PORT`). */
export async function startEverythingHttp(): Promise<{ url: string; process: ChildProcess; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code} before listening: ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A real `hldp serve` of `repo` with the MCP servers of `config`, its cache, data and workspace in `folder` (the
 * workspace made here), the repository left unpolled: how the mcp-servers suites start the gateway they call.
 */
export async function serveWithMcpConfig(folder: string, repo: string, config: string): Promise<ServiceProcess> {
  await mkdir(join(folder, 'workspace'));
  return spawnService(['serve', '--port', '0', '--repo', repo, '--config', config], {
    HLDP_CACHE_DIR: join(folder, 'cache'), HLDP_DATA_DIR: join(folder, 'data'), HLDP_WORKSPACE: join(folder, 'workspace'), HLDP_POLL_INTERVAL_MS: '600000',
  }, / at (http:\/\/[\d.:]+)\n/);
}
