import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub, streamEvents } from '../../src/events/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { openSse, type SseClient } from '../helpers/sse-client.js';

describe('streamEvents (SSE written straight to each socket)', () => {
  let store: Store;
  let hub: EventHub;
  let server: Server;
  const sockets: Socket[] = [];
  const clients: SseClient[] = [];

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    for (const client of clients) client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await hub.stop();
    await store.close();
  });

  describe('when a subscriber stops reading while events keep coming', () => {
    it('cuts it off once more than maxQueuedBytes wait for it, and a reading subscriber gets every event', async () => {
      store = openSqliteStore({ path: ':memory:' });
      hub = new EventHub({ log: store.events, pollMs: 50 });
      await hub.start();
      server = createServer((request, response) => void streamEvents(hub, request, response, { maxQueuedBytes: 64 * 1024 }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const reader = await openSse(`http://127.0.0.1:${port}/`);
      clients.push(reader);
      // a client that reads the headers, then nothing more
      const stalled = connect(port, '127.0.0.1');
      sockets.push(stalled);
      stalled.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
      await new Promise<void>((resolve) => stalled.once('data', () => resolve()));
      stalled.pause();
      expect(hub.subscribers).toBe(2);
      const padding = 'x'.repeat(16 * 1024);
      let published = 0;
      // the kernel's socket buffers take a few MiB first; past them, the server's own queue grows until the limit
      // (three events a turn, under the limit together, and the reader caught up before the next: only the stalled one falls behind)
      while (hub.subscribers === 2 && published < 4000) {
        for (let index = 0; index < 3; index += 1) hub.publish('receipt.stored', { n: ++published, padding });
        await hub.flush();
        const last = published;
        await reader.next((message) => message.event === 'receipt.stored' && JSON.parse(message.data).data.n === last, 60_000);
      }
      expect(hub.subscribers).toBe(1);
      await reader.next((message) => message.event === 'receipt.stored' && JSON.parse(message.data).data.n === published, 60_000);
      expect(reader.events().map((event) => event.data.n)).toEqual(Array.from({ length: published }, (_item, index) => index + 1));
    });
  });
});
