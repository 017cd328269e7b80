// Issue #18: `hldp serve` listens before it loads the MCP SDK (and zod); the first /mcp request loads it. A fresh
// server whose very first requests are MCP `initialize`s (two at once, sharing the one load) answers them and serves
// the session as before: tools/list, then a call that runs and stores its receipt.
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { callTool, firstText, makeClient } from './support.js';

const home = useServiceHome('warn');

describe('hldp serve', () => {
  describe('when its first requests are MCP initialize requests', () => {
    it('answers both, lists the tools and runs a call whose receipt is stored', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/greet/TOOL.hdlp': makeToolYaml('greet', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hello] }' }) });
      const server = await home.serve(['--repo', repo]);

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
