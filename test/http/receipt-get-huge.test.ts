import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalReceiptText } from '../../src/store/index.js';
import { readWhileHeld } from '../helpers/beside-healthz.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';

// GET /v1/receipts/:id of a receipt of 4 MB of NULs (24 MB of stored text) read it, parsed it and sent it with
// res.json in one turn of the event loop: a /healthz that came in meanwhile waited until all of it was written (a
// 96 MB receipt held the gateway for seconds). Now its stored text is read off the event loop and sent in slices.

const BYTES = 4_000_000;
let temp: { path: string; cleanup: () => Promise<void> };
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  temp = await makeTempDir();
  const repo = join(temp.path, 'repo');
  const constraints = `{ timeout_ms: 120000, max_output_bytes: ${BYTES + 1024} }`;
  await writeFiles(repo, { 'tools/huge/TOOL.hdlp': makeToolYaml('huge', { executor: 'shell', method: 'run', shell: `{ script: "head -c ${BYTES} /dev/zero" }`, constraints }) });
  // the server runs in this process: its store thread takes this process's environment (src/store/held-for-test.ts)
  process.env.HLDP_TEST_HOLD_STORE_READS = join(temp.path, 'holds');
  server = await startTestServer(repo, { HLDP_SANDBOX: 'off', HLDP_MAX_OUTPUT_BYTES: String(8 * 1024 * 1024) });
});
afterAll(async () => {
  delete process.env.HLDP_TEST_HOLD_STORE_READS;
  await server.cleanup();
  await temp.cleanup();
});

/** A connected socket to the server, its request not yet written. */
async function opened(): Promise<Socket> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

describe('GET /v1/receipts/:id of a huge receipt', () => {
  it('answers a /healthz while the store\'s thread holds the read, and sends the stored text byte for byte', async () => {
    const call = await request(server, 'POST', '/v1/call', { body: { tool: 'huge', params: {} } });
    expect(call.json).toMatchObject({ ok: true, output: '\u0000'.repeat(BYTES) });
    // the read held in the store's thread until a /healthz asked meanwhile is answered (review Z9, Z9-7)
    const { head, bodyBytes } = await readWhileHeld(server.url, join(temp.path, 'holds'), `/v1/receipts/${call.json.id}`);
    expect(head).toMatch(/^HTTP\/1\.1 200 [^]*content-type: application\/json; charset=utf-8/i);
    const body = dechunked(bodyBytes, /transfer-encoding: chunked/i.test(head)).toString('utf8');
    // byte for byte the stored (canonical) text of the receipt the call answered with
    expect(body === canonicalReceiptText(call.json)).toBe(true);
  }, 240_000);

  // Review U, U4: each GET held the receipt's whole text until its client had read it, with no bound on how many:
  // one principal's 60 slow reads of a 6 MB receipt held 320 MB. One principal is now sent at most 4 at once.
  it('sends one principal at most 4 long receipts at once: a fifth is 429 TOO_MANY_READS until one is read', async () => {
    const call = await request(server, 'POST', '/v1/call', { body: { tool: 'huge', params: {} } });
    const host = new URL(server.url).host;
    const slow: Socket[] = [];
    for (let reader = 0; reader < 4; reader += 1) {
      const socket = await opened();
      // a reader that takes the first bytes and then reads no more: its receipt stays held
      const started = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 12))));
      socket.write(`GET /v1/receipts/${call.json.id} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(await started).toBe('HTTP/1.1 200');
      socket.pause();
      slow.push(socket);
    }
    const fifth = await request(server, 'GET', `/v1/receipts/${call.json.id}`);
    expect({ status: fifth.status, code: fifth.json?.code, retryAfter: fifth.headers.get('retry-after') }).toEqual({ status: 429, code: 'TOO_MANY_READS', retryAfter: '1' });
    expect(fifth.json.error).toMatch(/already being sent 4 long receipts/);
    // a short receipt is not held back
    expect((await request(server, 'GET', '/v1/receipts/no-such-receipt')).status).toBe(404);
    for (const socket of slow) socket.destroy();
    await expect.poll(async () => (await request(server, 'GET', `/v1/receipts/${call.json.id}`)).status, { timeout: 30_000, interval: 100 }).toBe(200);
  }, 240_000);

  // Review X, X3: a page of GET /v1/receipts always holds its first receipt whatever its size, and was held for its
  // slow reader outside that count: 30 slow reads of ?limit=1 of a 6 MB receipt held 260 MB. Now they count together.
  it('counts slow reads of a page (?limit=1) with those by id: a fifth long read of either is 429 until one is read', async () => {
    const call = await request(server, 'POST', '/v1/call', { body: { tool: 'huge', params: {} } });
    const host = new URL(server.url).host;
    const slow: Socket[] = [];
    for (let reader = 0; reader < 4; reader += 1) {
      const socket = await opened();
      const started = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 12))));
      socket.write(`GET /v1/receipts?limit=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(await started).toBe('HTTP/1.1 200');
      socket.pause();
      slow.push(socket);
    }
    const page = await request(server, 'GET', '/v1/receipts?limit=1');
    expect({ status: page.status, code: page.json?.code }).toEqual({ status: 429, code: 'TOO_MANY_READS' });
    expect(page.json.error).toMatch(/GET \/v1\/receipts\b/);
    const byId = await request(server, 'GET', `/v1/receipts/${call.json.id}`);
    expect({ status: byId.status, code: byId.json?.code }).toEqual({ status: 429, code: 'TOO_MANY_READS' });
    for (const socket of slow) socket.destroy();
    await expect.poll(async () => (await request(server, 'GET', '/v1/receipts?limit=1')).status, { timeout: 30_000, interval: 100 }).toBe(200);
  }, 240_000);

  it('answers 404 for an id it does not hold', async () => {
    const response = await request(server, 'GET', '/v1/receipts/no-such-receipt');
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ code: 'RECEIPT_NOT_FOUND' });
  });
});

/** An HTTP/1.1 body as sent, its chunked framing taken off when it has one. */
function dechunked(body: Buffer, chunked: boolean): Buffer {
  if (!chunked) return body;
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
