import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub, Notifier } from '../../src/events/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';

describe('Notifier', () => {
  let store: Store;
  let hub: EventHub;
  let receiver: Server;
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning);

  afterEach(async () => {
    process.off('warning', onWarning);
    await hub.stop();
    await store.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  describe('when a receiver stays down through every retry', () => {
    it('fails the event for good without piling abort listeners on its stop signal', async () => {
      process.on('warning', onWarning);
      let posts = 0;
      receiver = createServer((request, response) => {
        posts += 1;
        request.resume().on('end', () => response.writeHead(503).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const { port } = receiver.address() as AddressInfo;
      store = openSqliteStore({ path: ':memory:' });
      hub = new EventHub({ log: store.events, pollMs: 20 });
      await hub.start();
      const failed: string[] = [];
      // 12 attempts: 11 pauses (1, 2, 4 … 1024 ms with jitter), more than the 10 listeners past which Node warns of a leak on one signal
      const notifier = new Notifier(hub, [{ url: `http://127.0.0.1:${port}/hook`, events: ['receipt.stored'] }], {
        attempts: 12,
        backoffMs: 1,
        failedForGood: (_target, _event, reason) => void failed.push(reason),
      });
      await notifier.start();
      hub.publish('receipt.stored', { ok: false });
      for (let tries = 0; tries < 400 && failed.length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      await notifier.stop();
      expect(failed).toEqual(['HTTP 503']);
      expect(posts).toBe(12);
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message)).toEqual([]);
    });
  });

  // events are bounded one by one (an approval request's params are cut to 4,096 characters), but a receiver that is
  // down for long must not make the gateway hold a queue of any size either (review J F5)
  describe('when a receiver does not answer and large events keep coming', () => {
    it('keeps at most 16 Mi characters of JSON queued for it, dropping the oldest and counting them as failed', async () => {
      const held: Array<() => void> = [];
      receiver = createServer((request, response) => {
        request.resume().on('end', () => held.push(() => response.writeHead(204).end()));
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const { port } = receiver.address() as AddressInfo;
      store = openSqliteStore({ path: ':memory:' });
      hub = new EventHub({ log: store.events, pollMs: 20 });
      await hub.start();
      const dropped: number[] = [];
      const notifier = new Notifier(hub, [{ url: `http://127.0.0.1:${port}/hook`, events: ['definitions.broken'] }], {
        timeoutMs: 60_000,
        failedForGood: (_target, event, reason) => void (reason.startsWith('dropped') && dropped.push(event.id)),
      });
      await notifier.start();
      const big = 'x'.repeat(1024 * 1024);
      for (let index = 0; index < 24; index += 1) hub.publish('definitions.broken', { commit: String(index), files: [big] });
      await hub.flush();
      for (let tries = 0; tries < 200 && held.length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      // the first is with the receiver; of the 23 queued after it, 15 fit in 16 Mi characters (each is 1 Mi and its
      // JSON around it): the 8 oldest went
      expect(dropped).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      for (const answer of held.splice(0)) answer();
      await notifier.stop();
    });
  });
});
