import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import { post, sendWebhook, useTwoInstances } from './support.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'listened', version: '1.0.0' } } };

// PostgreSQL checks no privilege for LISTEN: any role that may connect to the database hears the instances' channel
// (review S, S5; the messages are signed, which guards what they make an instance do, not what they say). An MCP
// session closed at one instance was announced to the others by its id: whoever listened learnt every session id
// the gateway gave out. The announcement now names its SHA-256, which the instances holding the session recognise.
describeWithPostgres('what a role of the database that only connects hears on the instances\' channel', () => {
  const pair = useTwoInstances();

  describe('when an MCP session served by both instances is closed at one, a rescan is asked and a call made', () => {
    it('hears no session id, only the announcements\' own fields, and the other instance still ends its copy', { timeout: 90_000 }, async () => {
      const role = `hldp_listener_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      await pair.sql.unsafe(`CREATE ROLE "${role}" LOGIN`);
      const listener = postgres(pair.database.url.replace(/\/\/[^@]*@/, `//${role}@`), { max: 1, onnotice: () => undefined });
      const heard: string[] = [];
      try {
        await listener.listen('hldp_bus', (payload) => heard.push(payload));
        const opened = await fetch(`${pair.a.url}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(INITIALIZE) });
        await opened.text();
        const id = opened.headers.get('mcp-session-id')!;
        const session = { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
        const list = (url: string): Promise<Response> => fetch(`${url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
        await (await fetch(`${pair.a.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
        // B restores it from the store and holds a copy of its own
        const atB = await list(pair.b.url);
        expect(atB.status).toBe(200);
        await atB.text();
        expect((await fetch(`${pair.a.url}/mcp`, { method: 'DELETE', headers: session })).status).toBe(200);
        // B's copy ends when B hears of the close: the store's record is gone, so B then finds it nowhere
        await expect.poll(async () => (await list(pair.b.url)).status, { timeout: 20_000, interval: 100 }).toBe(404);

        expect((await post(pair.a.url, '/v1/scan', {})).status).toBe(200);
        expect((await sendWebhook(pair.a.url)).status).toBe(202);
        expect((await post(pair.a.url, '/v1/call', { tool: 'echo', params: { word: 'heard' } })).status).toBe(200);
        const topics = (): string[] => heard.map((payload) => (JSON.parse(payload) as { topic: string }).topic);
        await expect.poll(() => new Set(topics()), { timeout: 20_000, interval: 100 }).toEqual(new Set(['mcp_session_closed', 'rescan', 'events']));

        for (const payload of heard) expect(payload).not.toContain(id);
        const fields = new Set(heard.map((payload) => {
          const { topic, message } = JSON.parse(payload) as { topic: string; message: Record<string, unknown> };
          return `${topic}: ${Object.keys(message).sort().join(', ')}`;
        }));
        expect(fields).toEqual(new Set(['mcp_session_closed: session_sha256', 'rescan: origin, reason', 'events: last, origin']));
      } finally {
        await listener.end();
        await pair.sql.unsafe(`DROP ROLE IF EXISTS "${role}"`);
      }
    });
  });
});
