import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, nodeServer, serveWithMcpConfig, writeMcpConfig } from './support.js';

// Review K's K13: a stdio server that stops reading its stdin and sends ping requests grew the gateway's memory
// without bound (every answer waited for 'drain' in the heap). Past 8 MiB waiting, the server is stopped and the
// call's receipt says why; the server is not left running.
const DEAF = fileURLToPath(new URL('./fixtures/deaf-server.mjs', import.meta.url));

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let gateway: ServiceProcess;
beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-deaf-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/deaf/TOOL.hdlp': mcpToolYaml('deaf', 'deaf', 'deaf', '{}', '{ timeout_ms: 60000 }') });
  const config = await writeMcpConfig(temp.path, { deaf: nodeServer(DEAF) });
  gateway = await serveWithMcpConfig(temp.path, repo, config);
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await temp?.cleanup();
});

describe('a stdio MCP server that stops reading its stdin and floods ping requests', () => {
  it('is stopped once 8 MiB of answers wait for it, and the call in flight says so', async () => {
    const response = await fetch(`${gateway.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'deaf', params: {} }) });
    const receipt = (await response.json()) as { duration_ms: number };
    // its pings are also messages nobody asked for: faster than 1,000 a second past its allowance it is stopped for that first (review Z11, Z11-4)
    expect(receipt).toMatchObject({ ok: false, code: 'CONNECTION_FAILED', error: expect.stringMatching(/was stopped by the gateway \((it stopped reading its stdin: more than 8388608 bytes of messages to it were waiting|it sent messages that no request asked for faster than 1000 a second, past its allowance)\)/) });
    // well before the tool's 60 s deadline, and the server is not kept
    expect(receipt.duration_ms).toBeLessThan(50_000);
    const health = (await (await fetch(`${gateway.url}/healthz`)).json()) as { mcp_servers: unknown };
    expect(health.mcp_servers).toEqual([expect.objectContaining({ name: 'deaf', state: 'stopped' })]);
  }, 90_000);
});
