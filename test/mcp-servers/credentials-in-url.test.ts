// Review Z13, Z13-4: an `mcp_servers.<name>.url` written with `user:password@` was accepted, never worked (Node's fetch
// refuses a URL with credentials), and its error quoted the URL whole: every call's receipt — the agent's answer,
// `hldp receipts`, GET /v1/receipts, events — held the password. Now the config refuses it at load, at its
// file:line:col, saying where the secret goes, and quotes no part of it. Real `hldp call`, `hldp import mcp` and
// `hldp serve` processes; a real HTTP server listens at the address, so nothing but the URL's credentials is at fault.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { mcpToolYaml } from './support.js';

const SECRET = 'sk-LIVE-SECRET-123';

let temp: { path: string; cleanup: () => Promise<void> };
let close: () => Promise<void>;
let origin: string;
beforeEach(async () => {
  temp = await makeTempDir();
  // answers anything 404: the address is real, so on main the call fails only by the URL's credentials
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
});
afterEach(async () => {
  await close();
  await temp.cleanup();
});

describe('an mcp_servers url holding user:password@', () => {
  it('stops hldp call, hldp import mcp and hldp serve at the config line, naming where the secret goes, and shows it nowhere', async () => {
    const config = join(temp.path, 'brush-holder.yaml');
    await writeFile(config, `mcp_servers:\n  remote:\n    url: http://hldp:${SECRET}@${origin}/mcp\n`);
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/remote-echo/TOOL.hdlp': mcpToolYaml('remote-echo', 'remote', 'echo', '{ type: object, properties: {}, additionalProperties: false }') });
    const workspace = join(temp.path, 'workspace');
    await mkdir(workspace);
    const env = { HLDP_WORKSPACE: workspace, HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_LOG_LEVEL: 'warn' };

    const call = await runCli(['call', 'remote-echo', '--repo', repo, '--config', config, '--json'], { env });
    // on main: the call ran and failed CONNECTION_FAILED, its receipt quoting http://hldp:sk-LIVE-SECRET-123@…
    expect(`${call.stdout}${call.stderr}`).not.toContain(SECRET);
    expect(call.code, call.stdout).toBe(2);
    expect(call.stderr).toContain(`${config}:3:5: mcp_servers.remote.url: holds a user or password (http://…@${origin})`);
    expect(call.stderr).toMatch(/give the secret as token \(sent as Authorization: Bearer; or HLDP_MCP_REMOTE_TOKEN\) or under headers/);
    // nothing ran, so no receipt holds it either
    const receipts = await runCli(['receipts', '--config', config, '--json'], { env });
    expect(`${receipts.stdout}${receipts.stderr}`).not.toContain(SECRET);

    const imported = await runCli(['import', 'mcp', '--server', 'remote', '--config', config], { cwd: workspace, env });
    expect(`${imported.stdout}${imported.stderr}`).not.toContain(SECRET);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain('mcp_servers.remote.url: holds a user or password');

    const serve = await runCli(['serve', '--repo', repo, '--config', config, '--port', '0'], { env });
    expect(`${serve.stdout}${serve.stderr}`).not.toContain(SECRET);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('mcp_servers.remote.url: holds a user or password');
  }, 120_000);
});
