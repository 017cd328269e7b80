import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { api, mcpClient, PRINCIPAL_ENV, PRINCIPALS_YAML, TOKENS } from '../policy/support.js';

// Review finding: one least-recently-used bound shared by every principal let any principal evict all the others' sessions
const home = useServiceHome('warn');

async function serve(sessions: string): Promise<string> {
  const config = join(home.path, 'config.yaml');
  await writeFile(config, `${PRINCIPALS_YAML}sessions: ${sessions}\n`);
  const service = await home.serve(['--repo', 'native-repo', '--config', config], { ...PRINCIPAL_ENV, HLDP_POLL_INTERVAL_MS: '600000' });
  return service.url;
}

const open = async (url: string, who: 'bot' | 'lead'): Promise<string> => {
  const opened = await api(url, 'POST', '/v1/sessions', { who, body: { toolsets: ['ops'] } });
  expect(opened.status).toBe(201);
  return opened.body.id as string;
};
const status = async (url: string, who: 'bot' | 'lead', id: string): Promise<number> => (await api(url, 'GET', `/v1/sessions/${id}`, { who })).status;

describe('HTTP sessions of several principals under hldp serve', () => {
  describe('when one principal opens more sessions than the bounds hold', () => {
    it("forgets only that principal's own least recently used sessions; the other's stay with their toolsets", async () => {
      const url = await serve('{ max_sessions: 6, max_sessions_per_principal: 4 }');
      const lead = [await open(url, 'lead'), await open(url, 'lead'), await open(url, 'lead')];
      const bot: string[] = [];
      for (let opened = 0; opened < 10; opened += 1) bot.push(await open(url, 'bot'));
      for (const id of lead) {
        const kept = await api(url, 'GET', `/v1/sessions/${id}`, { who: 'lead' });
        expect(kept).toMatchObject({ status: 200, body: { toolsets: [expect.objectContaining({ name: 'ops' })] } });
      }
      // bot holds at most its quota (4), and less where the whole bound (6) needs room: the one holding the most gives way
      expect(await Promise.all(bot.map((id) => status(url, 'bot', id)))).toEqual([404, 404, 404, 404, 404, 404, 404, 200, 200, 200]);
      expect((await api(url, 'GET', `/v1/sessions/${bot[0]}`, { who: 'bot' })).body).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    });
  });
});

describe('MCP connections of several principals under hldp serve', () => {
  it("ends only the connections of the principal holding the most when the instance's bound (100) is full", async () => {
    const url = await serve('{ max_sessions: 1000 }');
    const client = await mcpClient(url, 'lead');
    try {
      const enabled = (await client.callTool({ name: 'toolset', arguments: { action: 'enable', name: 'ops' } })) as CallToolResult;
      expect(enabled.isError).toBeFalsy();
      for (let opened = 0; opened < 101; opened += 1) {
        const response = await fetch(`${url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKENS.bot}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '0' } } }),
        });
        expect(response.status).toBe(200);
        await response.text();
      }
      // lead's connection (and the toolset its agent enabled in it) is still there
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('shell-exec');
    } finally {
      await client.close();
    }
  });
});
