import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';

// Review Z8, Z8-8: one principal is sent at most 4 long receipts at once on GET /v1/receipts/:id, a page and
// GET /v1/approvals/:id; the console's raw field (`/console/receipts/:id/raw/:field`) and the approval_wait meta-tool
// sent the same stored text outside that count: one agent, signed in to the console, held 40 × 16 MB. Each door now
// takes its place in the gateway's one count.

const BYTES = 8_000_000;
const TOKEN = 'receipt-doors-admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
let temp: { path: string; cleanup: () => Promise<void> };
let server: Awaited<ReturnType<typeof startTestServer>>;
let cookie: string;
let receiptId: string;

beforeAll(async () => {
  temp = await makeTempDir();
  const repo = join(temp.path, 'repo');
  const shell = `{ script: "head -c ${BYTES} /dev/zero" }`;
  await writeFiles(repo, {
    'tools/huge/TOOL.hdlp': makeToolYaml('huge', { executor: 'shell', method: 'run', shell, constraints: `{ timeout_ms: 120000, max_output_bytes: ${BYTES + 1024} }` }),
    'tools/huge-confirm/TOOL.hdlp': makeToolYaml('huge-confirm', { executor: 'shell', method: 'run', shell, constraints: `{ timeout_ms: 120000, max_output_bytes: ${BYTES + 1024}, require_confirm: true }` }),
  });
  server = await startTestServer(repo, { HLDP_SANDBOX: 'off', HLDP_MAX_OUTPUT_BYTES: String(16 * 1024 * 1024), HLDP_API_TOKEN: TOKEN });
  cookie = await signInToConsole(server.url, TOKEN);
  const call = await request(server, 'POST', '/v1/call', { body: { tool: 'huge', params: {} }, headers: auth });
  expect(call.status).toBe(200);
  receiptId = call.json.id;
}, 240_000);
afterAll(async () => {
  await server?.cleanup();
  await temp?.cleanup();
});

/**
 * `count` readers, each sending `head` (and `body`) on a connection of its own, taking the answer's first bytes (200)
 * and then reading no more: the text sent to each stays held by the gateway until its socket is closed.
 */
async function slowReaders(count: number, head: string, body = ''): Promise<Socket[]> {
  const { hostname, port } = new URL(server.url);
  const sockets: Socket[] = [];
  for (let reader = 0; reader < count; reader += 1) {
    const socket = connect(Number(port), hostname);
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const started = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 12))));
    socket.write(`${head}Host: ${new URL(server.url).host}\r\nConnection: close\r\n${body === '' ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`}\r\n${body}`);
    expect(await started).toBe('HTTP/1.1 200');
    socket.pause();
  }
  return sockets;
}

const apiRead = () => request(server, 'GET', `/v1/receipts/${receiptId}`, { headers: auth });
const rawRead = async () => {
  const response = await fetch(`${server.url}/console/receipts/${receiptId}/raw/output`, { headers: { cookie } });
  return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after') };
};

describe('long receipt reads, whichever door sends them (review Z8, Z8-8)', () => {
  it("counts the console's raw field with the API's reads: past 4 slow ones, both answer 429 until one is read", async () => {
    const slow = await slowReaders(4, `GET /console/receipts/${receiptId}/raw/output HTTP/1.1\r\nCookie: ${cookie}\r\n`);
    try {
      const fifth = await rawRead();
      expect({ status: fifth.status, retryAfter: fifth.retryAfter }).toEqual({ status: 429, retryAfter: '1' });
      expect(fifth.text).toMatch(/^TOO_MANY_READS: .*already being sent 4 long receipts/);
      const byId = await apiRead();
      expect({ status: byId.status, code: byId.json?.code }).toEqual({ status: 429, code: 'TOO_MANY_READS' });
    } finally {
      for (const socket of slow) socket.destroy();
    }
    await expect.poll(async () => (await rawRead()).status, { timeout: 60_000, interval: 200 }).toBe(200);
    // the raw bytes as stored, once the places are given back
    const whole = await rawRead();
    expect(whole.text.length === BYTES && /^\0*$/.test(whole.text)).toBe(true);
  }, 240_000);

  it("counts approval_wait's receipt: refused with TOO_MANY_READS while 4 are being sent, answered once they are read", async () => {
    const pending = await request(server, 'POST', '/v1/call', { body: { tool: 'huge-confirm', params: {} }, headers: auth });
    expect(pending.status).toBe(202);
    const confirmed = await request(server, 'POST', '/v1/confirm', { body: { token: pending.json.token }, headers: auth });
    expect(confirmed.status).toBe(200);
    const approvalId = confirmed.json.approval?.id ?? pending.json.id;
    expect(approvalId).toMatch(/^apr_/);
    const session = { ...auth, 'X-HLDP-Session': (await request(server, 'POST', '/v1/sessions', { body: {}, headers: auth })).json.id as string };
    const wait = () => request(server, 'POST', '/v1/call', { body: { tool: 'approval_wait', params: { id: approvalId, wait_s: 1 } }, headers: session });

    const slow = await slowReaders(4, `GET /v1/receipts/${receiptId} HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\n`);
    try {
      const refused = await wait();
      expect({ status: refused.status, code: refused.json?.code, ok: refused.json?.ok }).toEqual({ status: 429, code: 'TOO_MANY_READS', ok: false });
    } finally {
      for (const socket of slow) socket.destroy();
    }
    await expect.poll(async () => (await wait()).status, { timeout: 60_000, interval: 200 }).toBe(200);
    expect((await wait()).json).toMatchObject({ ok: true, tool: 'huge-confirm', id: confirmed.json.id });

    // and an approval_wait answer read slowly holds its place as the API's do: 4 of them, then the API's read is 429
    const body = JSON.stringify({ tool: 'approval_wait', params: { id: approvalId, wait_s: 1 } });
    const waits = await slowReaders(4, `POST /v1/call HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nX-HLDP-Session: ${session['X-HLDP-Session']}\r\n`, body);
    try {
      const byId = await apiRead();
      expect({ status: byId.status, code: byId.json?.code }).toEqual({ status: 429, code: 'TOO_MANY_READS' });
    } finally {
      for (const socket of waits) socket.destroy();
    }
    await expect.poll(async () => (await apiRead()).status, { timeout: 60_000, interval: 200 }).toBe(200);
  }, 240_000);
});
