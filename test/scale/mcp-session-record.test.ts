import { describe, expect, it } from 'vitest';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import { useTwoInstances } from './support.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// Every MCP initialize was kept whole in the shared store for a day: ~1 MiB a session, any agent (review L, L4).
describeWithPostgres('the record an MCP session leaves in the shared store', () => {
  const pair = useTwoInstances({ sql: { max: 1 } });

  describe('when a client initializes with 600 KB of capabilities', () => {
    it('keeps a few KB, and the session is served at the other instance', { timeout: 60_000 }, async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true }, experimental: { x: { y: 'z'.repeat(600_000) } } }, clientInfo: { name: 'big', version: '1.0.0' } } };
      const opened = await fetch(`${pair.a.url}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(initialize) });
      expect(opened.status).toBe(200);
      await opened.text();
      const id = opened.headers.get('mcp-session-id')!;
      const [row] = await pair.sql<Array<{ chars: number }>>`SELECT length(initialize)::int AS chars FROM mcp_sessions WHERE id = ${id}`;
      expect(row!.chars).toBeLessThan(8192);

      const session = { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
      await (await fetch(`${pair.b.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
      const listed = await fetch(`${pair.b.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('"tools"');
    });
  });
});
