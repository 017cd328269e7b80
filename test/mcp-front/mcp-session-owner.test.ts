import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, startGateway, startPolicyGateway, TOKENS, type PolicyGateway, type Who } from '../policy/support.js';

// Two real `hldp serve` processes on one SQLite store, which share MCP sessions. A request carrying another principal's
// Mcp-Session-Id made an instance that did not hold the session restore it — replay its initialize, keep it (evicting
// one of its owner's connections past the bound) and open the agent session under its id — before answering 404
// (review J). Now ownership is judged from the stored record first, and the answer is that of an id nobody knows.
let a: PolicyGateway;
let b: { url: string; service: ServiceProcess };
let client: Client;
let sessionId: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  a = await startPolicyGateway({});
  // the same folder: the same SQLite store
  b = await startGateway(a.repo, a.folder);
  client = new Client({ name: 'owner-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKENS.bot}` } } });
  await client.connect(transport);
  sessionId = transport.sessionId!;
  cleanup = async () => {
    await client.close();
    await b.service.stop();
    await a.stop();
  };
}, 90_000);
afterAll(() => cleanup());

/** A `tools/list` in session `id`, sent raw as principal `who`. */
async function listIn(url: string, id: string, who: Who): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS[who]}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18', accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return { status: response.status, body: (await response.text()).replace(id, 'ID') };
}

describe('a request with another principal\'s Mcp-Session-Id', () => {
  describe('at an instance that does not hold the session', () => {
    it('answers 404 as for an id nobody knows, and restores nothing: the owner\'s session is not opened there', async () => {
      const probe = await listIn(b.url, sessionId, 'lead');
      const unknown = await listIn(b.url, randomUUID(), 'lead');
      expect(probe).toEqual({ status: 404, body: unknown.body.replace(/'[0-9a-f-]{36}'/, "'ID'") });
      // the old restore opened the agent session under the MCP session's id at this instance (its sessions are in memory)
      expect((await api(b.url, 'GET', `/v1/sessions/${sessionId}`, { who: 'bot' })).status).toBe(404);
    });
  });

  describe('at the instance that holds it', () => {
    it('answers 404 too, and the owner goes on using it', async () => {
      expect((await listIn(a.url, sessionId, 'lead')).status).toBe(404);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('tool_find');
    });
  });

  describe('when its owner then comes to the other instance', () => {
    it('is restored there for the owner', async () => {
      const listed = await listIn(b.url, sessionId, 'bot');
      expect(listed.status).toBe(200);
      expect(listed.body).toContain('tool_find');
    });
  });
});
