import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review Z8, Z8-3 (its remaining part): `hldp serve` set no bound on open connections — Node's server.maxConnections is
// unset — so anyone who reaches the port opens them without end, each costing memory and a file descriptor (300 held
// connections, +270 MB). It holds at most listen.max_connections (HLDP_MAX_CONNECTIONS; no bound unless set: review Z12, finding 1); past
// them a new connection is closed unanswered, and a warn line says so.

let temp: { path: string; cleanup: () => Promise<void> };
let server: ServiceProcess;
beforeAll(async () => {
  temp = await makeTempDir('hldp-max-connections-');
  const repo = join(temp.path, 'repo');
  await writeFiles(repo, { 'tools/echo-it/TOOL.hdlp': makeToolYaml('echo-it', { executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }' }) });
  server = await spawnService(
    ['serve', '--port', '0'],
    { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '0', HLDP_MAX_CONNECTIONS: '4' },
    / at (http:\/\/[\d.:]+)\n/,
  );
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

async function open(): Promise<Socket> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** A whole `GET /healthz` on a connection of its own: what came back before the server closed it ('' when it was dropped unanswered). */
async function healthz(): Promise<string> {
  const socket = await open();
  const { host } = new URL(server.url);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  await ended;
  return text.split('\r\n')[0]!;
}

describe('hldp serve with listen.max_connections (review Z8, Z8-3)', () => {
  it('closes a connection past the bound unanswered, says so at warn, and serves again once one ends', async () => {
    expect(await healthz()).toBe('HTTP/1.1 200 OK');
    // 4 connections holding the start of a request's head: each stays open (its headers have 60 s to come)
    const held: Socket[] = [];
    try {
      for (let sender = 0; sender < 4; sender += 1) {
        const socket = await open();
        socket.on('error', () => undefined);
        socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n`);
        held.push(socket);
      }
      // the server accepts the 4 in its own time: ask until a fifth is turned away
      await expect.poll(healthz, { timeout: 30_000, interval: 100 }).toBe('');
      await expect.poll(() => server.stderr(), { timeout: 10_000, interval: 100 }).toMatch(/connections dropped: 4 are open, the most listen\.max_connections \(HLDP_MAX_CONNECTIONS\) allows/);
      // one ends: its place is free again
      held.pop()!.destroy();
      await expect.poll(healthz, { timeout: 30_000, interval: 100 }).toBe('HTTP/1.1 200 OK');
    } finally {
      for (const socket of held) socket.destroy();
    }
  }, 90_000);

  it('gives a place held by headers that never end back within 25 s, with 408 (Node alone: 60-90 s)', async () => {
    const socket = await open();
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const started = Date.now();
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n`);
    await ended;
    // 20 s for the headers, looked at every 5 s: a bound well short of Node's 60 s, whichever check finds it
    expect({ status: text.split('\r\n')[0], within: Date.now() - started < 45_000 }).toEqual({ status: 'HTTP/1.1 408 Request Timeout', within: true });
  }, 120_000);
});
