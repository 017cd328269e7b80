import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { track } from '../helpers/run-cli.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, nodeServer, serveWithMcpConfig, writeMcpConfig } from './support.js';

// Review Z21, Z21-5: the rule that stops an MCP server flooding the gateway with messages no request asked for counted
// messages, not bytes: a server sending a few notifications of 4-30 MB between calls (on stdout, or on its standalone
// GET stream over Streamable HTTP) was never stopped, the gateway reading (and over HTTP parsing) each whole while
// /healthz waited seconds. Now its bytes are counted as they arrive, against a budget beside the messages': past it the
// server is stopped as broken, logged, shown stopped in /healthz and told to the next call of its tools. A real hldp
// serve; the servers real processes (stdio, and HTTP on 127.0.0.1), each sending 3 notifications of 12 MiB after a call.
const HUGE = fileURLToPath(new URL('./fixtures/huge-notify-server.mjs', import.meta.url));
const REASON = 'was stopped by the gateway (it sent bytes that no request asked for faster than 4194304 a second, past its allowance)';

const stops: Array<() => unknown> = [];
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let gateway: ServiceProcess | undefined;

async function httpServer(): Promise<string> {
  const child = track(spawn(process.execPath, [HUGE, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] }));
  stops.push(() => child.kill('SIGKILL'));
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening on (\S+)\n/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the huge-notification server exited with ${code}`)));
  });
}

beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-huge-notify-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/huge-stdio/TOOL.hdlp': mcpToolYaml('huge-stdio', 'hugestdio', 'ping', '{}', '{ timeout_ms: 60000 }'),
    'tools/huge-http/TOOL.hdlp': mcpToolYaml('huge-http', 'hugehttp', 'ping', '{}', '{ timeout_ms: 60000 }'),
  });
  const config = await writeMcpConfig(temp.path, { hugestdio: nodeServer(HUGE), hugehttp: { url: await httpServer() } });
  gateway = await serveWithMcpConfig(temp.path, repo, config);
}, 60_000);
afterAll(async () => {
  await gateway?.stop().catch(() => undefined);
  for (const stop of stops) stop();
  await temp?.cleanup();
});

const call = async (tool: string): Promise<Record<string, unknown>> =>
  (await (await fetch(`${gateway!.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params: {} }) })).json()) as Record<string, unknown>;

/** The state /healthz gives server `name` once it is `state`, or its last state after 60 s; every /healthz asked must answer 200. */
async function stateOf(name: string, state: string): Promise<string | undefined> {
  const deadline = Date.now() + 60_000;
  let now: string | undefined;
  while (Date.now() < deadline) {
    const health = await fetch(`${gateway!.url}/healthz`);
    expect(health.status).toBe(200);
    now = ((await health.json()) as { mcp_servers: Array<{ name: string; state: string }> }).mcp_servers.find((server) => server.name === name)?.state;
    if (now === state) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return now;
}

describe('an MCP server that sends few but huge notifications between calls', () => {
  it.each([
    { transport: 'stdio', tool: 'huge-stdio', server: 'hugestdio' },
    { transport: 'Streamable HTTP (its standalone GET stream)', tool: 'huge-http', server: 'hugehttp' },
  ])('over $transport is stopped as broken, logged with its budget and told to the next call, while the gateway keeps answering', async ({ tool, server }) => {
    expect(await call(tool)).toMatchObject({ ok: true, output: 'pong' });
    // /healthz answers while the server sends, and soon shows it stopped (on main it was never stopped)
    expect(await stateOf(server, 'stopped')).toBe('stopped');
    const logged = gateway!.stderr().split('\n').find((line) => line.includes('an MCP server broke the protocol and was stopped') && line.includes(`"server":"${server}"`));
    expect(logged).toContain('it sent bytes that no request asked for faster than 4194304 a second, past its allowance');
    // the next call is told why the server ended, and is answered by a server started anew
    const receipt = await call(tool);
    expect(receipt).toMatchObject({ ok: true, output: 'pong' });
    expect(String(receipt.stderr)).toContain(`MCP server '${server}' ${REASON} since its last call; it was started again`);
    expect((await fetch(`${gateway!.url}/healthz`)).status).toBe(200);
  }, 150_000);
});
