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
  await commitFiles(repo, {
    'tools/flood-ping/TOOL.hdlp': mcpToolYaml('flood-ping', 'flood', 'ping', '{}', '{ timeout_ms: 60000 }'),
    'tools/string-ping/TOOL.hdlp': mcpToolYaml('string-ping', 'stringid', 'ping', '{}', '{ timeout_ms: 60000 }'),
  });
  const config = await writeMcpConfig(temp.path, { flood: nodeServer(FLOOD), stringid: nodeServer(FLOOD, ['stringid']) });
  gateway = await serveWithMcpConfig(temp.path, repo, config);
}, 60_000);
afterAll(async () => {
  await gateway?.stop().catch(() => undefined);
  await temp?.cleanup();
});

const call = async (url: string, tool = 'flood-ping'): Promise<Record<string, unknown>> =>
  (await (await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params: {} }) })).json()) as Record<string, unknown>;

/** The state /healthz gives server `name` once it is `state`, or its last state after 60 s. */
async function stateOf(url: string, name: string, state: string): Promise<string | undefined> {
  const deadline = Date.now() + 60_000;
  let now: string | undefined;
  while (Date.now() < deadline) {
    now = ((await (await fetch(`${url}/healthz`)).json()) as { mcp_servers: Array<{ name: string; state: string }> }).mcp_servers.find((server) => server.name === name)?.state;
    if (now === state) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return now;
}

const REASON = 'was stopped by the gateway (it sent messages that no request asked for faster than 1000 a second, past its allowance)';

describe('a stdio MCP server that answered initialize with its id as a string, then floods (review Z18, Z18-1)', () => {
  it('is stopped all the same: request 0 was answered, and no request waits', async () => {
    expect(await call(gateway!.url, 'string-ping')).toMatchObject({ ok: true, output: 'pong' });
    expect(await stateOf(gateway!.url, 'stringid', 'stopped')).toBe('stopped');
  }, 90_000);
});

describe('a stdio MCP server that floods notifications after answering a call', () => {
  it('is stopped as broken, logged and told to the next call, while /healthz keeps answering; SIGTERM then stops the gateway', async () => {
    const { url } = gateway!;
    expect(await call(url)).toMatchObject({ ok: true, output: 'pong' });
    // /healthz keeps answering while the server floods, and soon shows it stopped (on main it flooded for idle_ms, 5 minutes)
    expect(await stateOf(url, 'flood', 'stopped')).toBe('stopped');
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
