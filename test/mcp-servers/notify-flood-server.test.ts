import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, nodeServer, serveWithMcpConfig, writeMcpConfig } from './support.js';

// Review Z11's Z11-4: a stdio server that floods notifications between calls held the gateway's event loop (every
// /healthz 1.8-3.4 s) until it was stopped for idling, 5 minutes later, and a SIGTERM took 33 s. Now reading yields
// between bounded batches of lines, and a server sending more than 1,000 messages a second that nobody asked for is
// stopped as broken: logged, shown stopped in /healthz, and told to the next call of its tools.
const FLOOD = fileURLToPath(new URL('./fixtures/notify-flood-server.mjs', import.meta.url));

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let gateway: ServiceProcess | undefined;
beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-notify-flood-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/flood-ping/TOOL.hdlp': mcpToolYaml('flood-ping', 'flood', 'ping', '{}', '{ timeout_ms: 60000 }') });
  const config = await writeMcpConfig(temp.path, { flood: nodeServer(FLOOD) });
  gateway = await serveWithMcpConfig(temp.path, repo, config);
}, 60_000);
afterAll(async () => {
  await gateway?.stop().catch(() => undefined);
  await temp?.cleanup();
});

const call = async (url: string): Promise<Record<string, unknown>> =>
  (await (await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'flood-ping', params: {} }) })).json()) as Record<string, unknown>;

const REASON = 'was stopped by the gateway (it sent more than 1000 messages in a second that no request asked for)';

describe('a stdio MCP server that floods notifications after answering a call', () => {
  it('is stopped as broken, logged and told to the next call, while /healthz keeps answering; SIGTERM then stops the gateway', async () => {
    const { url } = gateway!;
    expect(await call(url)).toMatchObject({ ok: true, output: 'pong' });
    // /healthz keeps answering while the server floods, and soon shows it stopped (on main it flooded for idle_ms, 5 minutes)
    const deadline = Date.now() + 60_000;
    let servers: Array<{ name: string; state: string }> = [];
    while (Date.now() < deadline) {
      servers = ((await (await fetch(`${url}/healthz`)).json()) as { mcp_servers: typeof servers }).mcp_servers;
      if (servers.some((server) => server.name === 'flood' && server.state === 'stopped')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(servers).toEqual([expect.objectContaining({ name: 'flood', state: 'stopped' })]);
    expect(gateway!.stderr()).toContain('an MCP server broke the protocol and was stopped');
    // the next call is told why the server ended, and is answered by a server started anew
    const receipt = await call(url);
    expect(receipt).toMatchObject({ ok: true, output: 'pong' });
    expect(String(receipt.stderr)).toContain(`MCP server 'flood' ${REASON} since its last call; it was started again`);
    // stopping the gateway while the new server floods: within spawn-service's bound (20 s), not held by the flood
    await gateway!.stop();
    gateway = undefined;
  }, 150_000);
});
