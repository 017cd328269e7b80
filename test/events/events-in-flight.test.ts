import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCKS } from '../../src/store/postgres/postgres-migrations.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { makeWorld, startInstance, type ScaleWorld } from '../scale/support.js';

const TOKEN = 'in-flight-admin-token-0123456789';

// The log's newest id was the sequence's last value, which counts an id taken by an append not committed yet: a reader
// asking for the newest page (an instance starting, an SSE client reset) was told that id as where to resume, and never
// got the event once it committed (review L, L1).
describeWithPostgres('the PostgreSQL event log while another instance\'s append is in flight', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let sql: postgres.Sql;
  let instance: ServiceProcess;
  let client: Client;

  beforeAll(async () => {
    world = await makeWorld();
    database = await createTestDatabase();
    sql = postgres(database.url, { max: 2, onnotice: () => undefined });
    instance = await startInstance(world, database.url, { config: `api_token: ${TOKEN}\n` });
    client = new Client({ name: 'in-flight-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${instance.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await instance?.stop();
    await sql?.end();
    await database?.drop();
    await world?.cleanup();
  });

  const call = async (word: string): Promise<void> => {
    const response = await fetch(`${instance.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ tool: 'echo', params: { word } }) });
    expect(response.status).toBe(200);
  };
  const read = async (uri: string): Promise<{ events: Array<{ id: number; data: Record<string, any> }>; last: number }> => {
    const result = await client.readResource({ uri });
    return JSON.parse((result.contents[0] as { text: string }).text);
  };

  describe('when an MCP client reads the newest events, then reads on after the last it was given', () => {
    it('gets the event that was in flight once it commits', { timeout: 60_000 }, async () => {
      await call('before');
      // the call's event is stored after its answer: once it is, or it would queue behind the append held below and come
      // after it (a CI run read held, echo, echo)
      await expect.poll(async () => (await read('hldp://events?types=receipt.stored&limit=5')).events.map((event) => event.data.tool), { timeout: 10_000, interval: 100 }).toContain('echo');
      // an append held open as an instance's batch is between its INSERT and its COMMIT
      let inserted!: (seq: number) => void;
      const insertedSeq = new Promise<number>((resolve) => (inserted = resolve));
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      const held = sql.begin(async (transaction) => {
        await transaction`SELECT pg_advisory_xact_lock(${LOCKS.events.toString()}::bigint)`;
        const [row] = await transaction`INSERT INTO events (type, at_ms, data) VALUES ('receipt.stored', ${Date.now()}, ${JSON.stringify({ ok: false, tool: 'held', code: 'HELD' })}) RETURNING seq`;
        inserted(Number(row!.seq));
        await committing;
      });
      let newest: { last: number };
      try {
        const heldSeq = await insertedSeq;
        newest = await read('hldp://events?types=receipt.stored&limit=5');
        expect(newest.last).toBeLessThan(heldSeq);
      } finally {
        commit();
        await held;
      }
      await call('after');
      // the call's event is stored after its answer
      await expect.poll(async () => (await read(`hldp://events?after=${newest.last}&types=receipt.stored`)).events.map((event) => event.data.tool), { timeout: 10_000, interval: 100 }).toEqual(['held', 'echo']);
    });
  });
});
