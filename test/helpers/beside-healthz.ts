import { connect, type Socket } from 'node:net';
import { expect } from 'vitest';

/** A connected socket to the server, its request not yet written. */
async function opened(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/**
 * Sends GET `path` (with `headers`), then GET /healthz, in one turn (the server reads them in that order), each on a
 * connection of its own: in which order their answers came (first and last byte of `path`'s), and `path`'s whole
 * answer, head and body. A server that reads `path` on its event loop answers /healthz only after it.
 */
export async function readBesideHealthz(url: string, path: string, headers: Record<string, string> = {}): Promise<{ order: string[]; head: string; body: string }> {
  const [readSocket, healthSocket] = [await opened(url), await opened(url)];
  const order: string[] = [];
  const chunks: Buffer[] = [];
  const readDone = new Promise<void>((resolve) => {
    readSocket.on('data', (chunk: Buffer) => {
      if (chunks.length === 0) order.push('read: first byte');
      chunks.push(chunk);
    });
    readSocket.once('end', () => resolve(void order.push('read: last byte')));
  });
  let health = '';
  const healthDone = new Promise<void>((resolve) => {
    healthSocket.on('data', (chunk: Buffer) => (health += chunk.toString()));
    healthSocket.once('end', () => resolve(void order.push('healthz: answered')));
  });
  const host = new URL(url).host;
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  readSocket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`);
  healthSocket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  await Promise.all([readDone, healthDone]);
  expect(health).toMatch(/^HTTP\/1\.1 200 /);
  const answer = Buffer.concat(chunks).toString('utf8');
  const split = answer.indexOf('\r\n\r\n');
  return { order, head: answer.slice(0, split), body: answer.slice(split + 4) };
}
