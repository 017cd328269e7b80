import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { makeWorld, post, startInstance, type ScaleWorld } from './support.js';

/**
 * A TCP relay to PostgreSQL that can play a database that is down: its connections reset (RST, as a crashed or
 * restarting server's are) and every new one reset at once, then up again on the same port.
 */
interface Relay {
  port: number;
  /** connections opened since the relay went down (each reset at once) */
  refused: number;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<Socket>();
  let isDown = false;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (isDown) {
      relay.refused += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.connect(target.port, target.host);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relay: Relay = {
    port: (server.address() as AddressInfo).port,
    refused: 0,
    down() {
      isDown = true;
      relay.refused = 0;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    up() {
      isDown = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return relay;
}

// The database restarts (a crash, a failover: its connections reset, new ones refused for a few seconds), comes back,
// and the gateway is stopped. postgres.js 3.4.9 kept each connection's pending reconnect timer past sql.end(): the
// store's LISTEN connection, waiting seconds (its back-off grows with each refused attempt), reconnected after the store
// had closed and held the process open for good (idle_timeout: none): `hldp serve` never exited after SIGTERM (CI at
// 9dff67e, store-connections-dropped's afterAll). patches/ holds the driver's fix.
describeWithPostgres('hldp serve on PostgreSQL stopped after the database was down and came back', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let relay: Relay;
  let instance: ServiceProcess;

  beforeAll(async () => {
    world = await makeWorld();
    database = await createTestDatabase();
    const target = new URL(database.url);
    relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    target.port = String(relay.port);
    instance = await startInstance(world, target.toString());
  });
  afterAll(async () => {
    if (instance?.child.exitCode === null) instance.child.kill('SIGKILL');
    await relay?.close();
    await database?.drop();
    await world?.cleanup();
  });

  describe('when SIGTERM comes while the store still waits to reconnect', () => {
    it('exits 0 within the bound, and nothing holds it open', { timeout: 120_000 }, async () => {
      // the store works through the relay
      expect((await post(instance.url, '/v1/call', { tool: 'echo', params: { word: 'before' } })).json).toMatchObject({ ok: true, error: null });

      relay.down();
      // the LISTEN connection reconnects at once, then backs off longer after each reset (3^n/100 s, jittered, at most
      // 20 s): after eight, its next attempt is 10-20 s away
      await expect.poll(() => relay.refused, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(8);
      relay.up();

      // stop() rejects, with the process's node report, if it is still running 20 s after SIGTERM
      const code = await instance.stop();
      expect(code, instance.stderr()).toBe(0);
      expect(instance.stderr()).not.toMatch(/still running .* after the gateway stopped/);
    });
  });
});
