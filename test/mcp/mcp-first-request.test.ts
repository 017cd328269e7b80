// Issue #18: `hldp serve` listens before it loads the MCP SDK (and zod); the first /mcp request loads it. A fresh
// server whose very first requests are MCP `initialize`s (two at once, sharing the one load) answers them and serves
// the session as before: tools/list, then a call that runs and stores its receipt.
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { callTool, firstText, makeClient } from './support.js';

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
const services: ServiceProcess[] = [];

beforeEach(async () => {
  temp = await makeTempDir();
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
});
afterEach(async () => {
  while (services.length) await services.pop()!.stop();
  await temp.cleanup();
});

describe('hldp serve', () => {
  describe('when its first requests are MCP initialize requests', () => {
    it('answers both, lists the tools and runs a call whose receipt is stored', async () => {
      const repo = await initRepository(join(temp.path, 'repo'));
      await commitFiles(repo, { 'tools/greet/TOOL.hdlp': makeToolYaml('greet', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hello] }' }) });
      const server = await spawnService(['serve', '--repo', repo, '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
      services.push(server);

      const first = makeClient();
      const second = makeClient();
      await Promise.all([first, second].map((client) => client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))));
      expect(first.getServerVersion()).toMatchObject({ name: expect.any(String) });
      expect(second.getServerVersion()).toEqual(first.getServerVersion());

      expect((await first.listTools()).tools.map((tool) => tool.name)).toContain('greet');
      expect(firstText(await callTool(second, 'greet'))).toBe('hello\n');
      const receipts = await request(server, 'GET', '/v1/receipts?limit=5');
      expect(receipts.json).toMatchObject({ receipts: [{ tool: 'greet', ok: true }] });
      await Promise.all([first.close(), second.close()]);
    }, 60_000);
  });
});
