import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, nodeServer, serveWithMcpConfig, writeMcpConfig } from '../mcp-servers/support.js';

// Review Z12, finding 2: a server that sends 3,000 log notifications during a call it is answering — an ordinary
// chatty server, whose call succeeded at 5566b15 — was stopped as "broken" by 05b6802's 1,000 unasked messages a second
// (review Z11, Z11-4). While a call waits, its server's messages are not counted (the flood of a server no call waits
// for still is: notify-flood-server.test.ts).
const SERVER = fileURLToPath(new URL('./fixtures/batch-progress-server.mjs', import.meta.url));
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let gateway: ServiceProcess | undefined;
beforeAll(async () => {
  temp = await makeTempDir('hldp-chatty-server-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/batch-run/TOOL.hdlp': mcpToolYaml('batch-run', 'batch', 'batch', '{}', '{ timeout_ms: 60000 }') });
  const config = await writeMcpConfig(temp.path, { batch: nodeServer(SERVER) });
  gateway = await serveWithMcpConfig(temp.path, repo, config);
}, 90_000);
afterAll(async () => {
  await gateway?.stop().catch(() => undefined);
  await temp?.cleanup();
});

describe('a stdio MCP server logging each item of a batch while it answers a call', () => {
  it('answers the call', async () => {
    const response = await fetch(`${gateway!.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'batch-run', params: {} }) });
    const receipt = (await response.json()) as Record<string, unknown>;
    expect(receipt).toMatchObject({ ok: true, output: 'batch done' });
  }, 90_000);
});
