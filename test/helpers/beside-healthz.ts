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
export async function readBesideHealthz(url: string, path: string, headers: Record<string, string> = {}): Promise<{ order: string[]; head: string; body: string; bodyBytes: Buffer }> {
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
  const bytes = Buffer.concat(chunks);
  const split = bytes.indexOf('\r\n\r\n');
  return { order, head: bytes.subarray(0, split).toString('utf8'), body: bytes.subarray(split + 4).toString('utf8'), bodyBytes: bytes.subarray(split + 4) };
}

/** How many times `readAfterHealthz` sends the pair before it holds the order it got. */
const TRIES = 5;

/**
 * `readBesideHealthz`, asserting that the /healthz was answered before `path`'s first byte. A server that reads `path`
 * on its event loop answers it after, every time. One that reads it off the loop answers the /healthz first, but on a
 * loaded host the /healthz may reach the server (or its answer the test) only after a quick read's answer: the pair is
 * sent again, up to TRIES times, and the order of the last try is asserted (a CI run failed on one such race; at load 35-40
 * the console's reads lost it three times running).
 */
export async function readAfterHealthz(url: string, path: string, headers: Record<string, string> = {}): Promise<{ head: string; body: string; bodyBytes: Buffer }> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await readBesideHealthz(url, path, headers);
    if (answer.order[0] === 'healthz: answered' || attempt === TRIES) {
      expect(answer.order, path).toEqual(['healthz: answered', 'read: first byte', 'read: last byte']);
      return answer;
    }
  }
}
