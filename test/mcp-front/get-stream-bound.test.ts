import { createServer, type Server as HttpServer } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGES_BEHIND, SessionTransport } from '../../src/mcp-front/session-transport.js';

// Review Z16-2: the SDK queued every message for a session's GET stream whatever its socket took, so a client that
// opened the stream and never read it made the gateway hold each notification for it, without end. Real HTTP server,
// real socket, the SDK's Server on our transport; only what the client reads once it starts reading is looked at.

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const URIS = Array.from({ length: 16 }, (_, at) => `hldp://events?after=${100_000_000_000_000 + at}&types=receipt.stored,call.rejected,approval.requested,approval.resolved,scan.completed,scan.failed,definitions.broken,failures&limit=${at + 1}`);

let http: HttpServer | undefined;
afterEach(async () => {
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve) ?? resolve(undefined));
  http = undefined;
});

/** A session on a real HTTP server, initialized, with its GET stream opened on a socket nobody reads yet. */
async function unreadSession(): Promise<{ server: Server; socket: net.Socket; received: () => string; ended: Promise<void> }> {
  const transport = new SessionTransport({ sessionIdGenerator: () => 'session-z16-2' });
  const server = new Server({ name: 'bound', version: '0.0.0' }, { capabilities: { resources: { subscribe: true }, logging: {} } });
  await server.connect(transport);
  http = createServer((request, response) => void transport.handleRequest(request, response));
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const initialize = await fetch(`${base}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
  expect(initialize.status).toBe(200);
  await initialize.text();
  const initialized = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': 'session-z16-2' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(initialized.status).toBe(202);
  const socket = net.connect((http.address() as AddressInfo).port, '127.0.0.1');
  let text = '';
  socket.on('data', (data) => (text += data.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: session-z16-2\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n`);
  // the stream's headers arrive, then the client stops reading
  for (let tries = 0; !text.includes('200 OK'); tries += 1) {
    expect(tries).toBeLessThan(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  socket.pause();
  return { server, socket, received: () => text, ended };
}

/** Reads on until nothing came for half a second. */
async function readAll(socket: net.Socket, received: () => string): Promise<string> {
  socket.resume();
  for (let length = -1; length !== received().length; ) {
    length = received().length;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return received();
}

const count = (text: string, what: string): number => text.split(what).length - 1;

describe('a session whose GET stream is not read (review Z16-2)', () => {
  it('holds back resources/updated while the stream is behind, the last per URI, and sends them when it drains', async () => {
    const { server, socket, received } = await unreadSession();
    const SENT = 40_000;
    for (let at = 0; at < SENT; at += 1) {
      await server.sendResourceUpdated({ uri: URIS[at % URIS.length]! });
      // the events come in turns of the loop, as the hub delivers them
      if (at % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
    }
    const text = await readAll(socket, received);
    // far fewer than were sent reached the client (the kernel's buffers hold some), and every URI's news did
    expect(count(text, 'notifications/resources/updated')).toBeLessThan(SENT / 2);
    for (const uri of URIS) expect(text).toContain(`"uri":"${uri}"`);
  }, 120_000);

  it(`ends the stream once more than ${MAX_MESSAGES_BEHIND} other messages wait behind a reader that does not read`, async () => {
    const { server, socket, received, ended } = await unreadSession();
    const SENT = 40_000;
    for (let at = 0; at < SENT; at += 1) {
      await server.sendLoggingMessage({ level: 'info', data: `${at} ${'x'.repeat(200)}` });
      if (at % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
    }
    const text = await readAll(socket, received);
    expect(await Promise.race([ended.then(() => 'ended'), new Promise((resolve) => setTimeout(resolve, 5000, 'still open'))])).toBe('ended');
    expect(count(text, 'notifications/message')).toBeLessThan(SENT / 2);
  }, 120_000);
});
