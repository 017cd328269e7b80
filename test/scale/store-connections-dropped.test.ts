import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { get, load, makeWorld, post, startInstance, type ScaleWorld } from './support.js';

// A PostgreSQL restart, a failover, an admin's pg_terminate_backend or a pooler restart ends the store's connections
// while calls run. postgres.js 3.4.9 then wrote a transaction's own rollback on the closed connection from a
// setImmediate and threw a TypeError no caller could catch: the gateway process died (review L, L9). patches/ holds the
// driver's fix, applied at install.
describeWithPostgres('hldp serve on PostgreSQL when the database ends its connections during calls', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let admin: postgres.Sql;
  let instance: ServiceProcess;

  beforeAll(async () => {
    world = await makeWorld();
    database = await createTestDatabase();
    admin = postgres(database.url.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => undefined });
    instance = await startInstance(world, database.url);
  });
  afterAll(async () => {
    await instance?.stop();
    await admin?.end();
    await database?.drop();
    await world?.cleanup();
  });

  const name = (): string => new URL(database.url).pathname.slice(1);
  const terminate = () => admin`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = ${name()} AND pid <> pg_backend_pid()`;

  describe('when every backend of the gateway is terminated each 200 ms while 8 clients send 160 calls', () => {
    it('answers every call with its receipt, lives on, and stores receipts again on one unbroken chain', { timeout: 120_000 }, async () => {
      let calling = true;
      const calls = load(160, 8, (index) =>
        // a gateway that died answers nothing: the connection refused or reset
        post(instance.url, '/v1/call', { tool: 'echo', params: { word: `w${index}` } }).catch((error: Error) => ({ status: 0, json: String(error.cause ?? error) })),
      ).finally(() => {
        calling = false;
      });
      let terminated = 0;
      while (calling) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        terminated += (await terminate())[0]!.n;
      }
      const answers = await calls;

      expect(terminated).toBeGreaterThan(0);
      expect(instance.child.exitCode, instance.stderr()).toBeNull();
      expect(instance.stderr()).not.toMatch(/TypeError|CONNECTION_CLOSED.*\n\s+at /);
      // each call answered with its receipt: stored, or saying it was not
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.json).toMatchObject({ ok: true, tool: 'echo' });
        if (answer.json.error !== null) expect(answer.json.error).toMatch(/^RECEIPT_NOT_STORED: /);
      }

      // the database is there: calls are stored again, the receipt is read back, /healthz is ok, the chain verifies
      let stored = { status: 0, json: {} as any };
      await expect.poll(async () => (stored = await post(instance.url, '/v1/call', { tool: 'echo', params: { word: 'stored' } })).json.error, { timeout: 20_000, interval: 200 }).toBeNull();
      expect(stored.json).toMatchObject({ ok: true, output: 'stored' });
      // a connection ended by the last round may still take one more query: a read is asked again, as a client would
      await expect.poll(async () => (await get(instance.url, `/v1/receipts/${stored.json.id}`)).json, { timeout: 10_000, interval: 200 }).toEqual(stored.json);
      await expect.poll(async () => (await get(instance.url, '/healthz')).json.status, { timeout: 10_000, interval: 200 }).toBe('ok');
      expect((await get(instance.url, '/v1/receipts/verify')).json).toMatchObject({ ok: true });
      expect(instance.child.exitCode, instance.stderr()).toBeNull();
    });
  });
});
