import { createHmac } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { request, startEchoItServer, startTestServer } from '../helpers/http-server.js';

// Review Z8, Z8-3: the webhook route, the one a gateway exposes to Forgejo and so to anyone who reaches the port, read
// up to 1 MiB of any connection's body before any check — with webhooks off too — and nothing bounded how many: 300
// connections held +270 MB for 305 s. It now answers what it can before reading a body, and reads 8 at most at once.
// Z8-7: a missing X-Forgejo-Event was read as a push, and a push to any repository sharing the secret rescanned.

const SECRET = 'webhook-edge-secret-0123';
const sign = (body: string): string => createHmac('sha256', SECRET).update(body).digest('hex');
const echoTool = (name: string) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${name}] }` });

let temp: { path: string; cleanup: () => Promise<void> };
let gitServer: GitHttpServer;
let server: Awaited<ReturnType<typeof startTestServer>>;
let served: string;

beforeAll(async () => {
  temp = await makeTempDir();
  const projectRoot = join(temp.path, 'served');
  await initRepository(join(projectRoot, 'agents', 'tools.git'), { bare: true });
  gitServer = await startGitHttpServer({ projectRoot });
  const work = await initRepository(join(temp.path, 'work'));
  await git(work, 'remote', 'add', 'origin', `${gitServer.url}/agents/tools.git`);
  served = await commitFiles(work, { 'tools/first/TOOL.hdlp': echoTool('first') });
  await git(work, 'push', '-q', 'origin', 'main');
  server = await startTestServer(`${gitServer.url}/agents/tools.git`, { HLDP_WEBHOOK_SECRET: SECRET, HLDP_POLL_INTERVAL_MS: '0' });
}, 120_000);
afterAll(async () => {
  await server?.cleanup();
  await gitServer?.close();
  await temp?.cleanup();
});

/** A connection to `url` on which `head` (a request's head, with its blank line) is written and no body: its answer's head, when one comes. */
async function headersOnly(url: string, head: string): Promise<{ socket: Socket; answer: Promise<string> }> {
  const { hostname, port, host } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.once('close', () => resolve(text));
  });
  socket.write(head.replace('Host: -', `Host: ${host}`));
  return { socket, answer };
}

const MIB = 1024 * 1024;

describe('POST /v1/hooks/forgejo reads no body it can refuse without one (review Z8, Z8-3)', () => {
  it('answers 404 WEBHOOKS_OFF when webhooks are off, before the body is sent', async () => {
    const off = await startEchoItServer();
    try {
      const { socket, answer } = await headersOnly(off.url, `POST /v1/hooks/forgejo HTTP/1.1\r\nHost: -\r\nContent-Type: application/json\r\nContent-Length: ${MIB}\r\n\r\n`);
      expect(await answer).toMatch(/^HTTP\/1\.1 404 [^]*\r\n\r\n/);
      socket.destroy();
    } finally {
      await off.cleanup();
    }
  }, 60_000);

  it('answers 401 without a signature header and 413 past the limit, before the body is sent', async () => {
    const unsigned = await headersOnly(server.url, `POST /v1/hooks/forgejo HTTP/1.1\r\nHost: -\r\nX-Forgejo-Event: push\r\nContent-Length: ${MIB}\r\n\r\n`);
    expect(await unsigned.answer).toMatch(/^HTTP\/1\.1 401 /);
    unsigned.socket.destroy();
    const malformed = await headersOnly(server.url, `POST /v1/hooks/forgejo HTTP/1.1\r\nHost: -\r\nX-Forgejo-Signature: sha256=not-hex\r\nContent-Length: ${MIB}\r\n\r\n`);
    expect(await malformed.answer).toMatch(/^HTTP\/1\.1 401 /);
    malformed.socket.destroy();
    const large = await headersOnly(server.url, `POST /v1/hooks/forgejo HTTP/1.1\r\nHost: -\r\nX-Forgejo-Signature: ${'a'.repeat(64)}\r\nContent-Length: ${64 * MIB}\r\n\r\n`);
    expect(await large.answer).toMatch(/^HTTP\/1\.1 413 /);
    large.socket.destroy();
  }, 60_000);

  it('reads at most 8 webhook bodies at once: past them 503 WEBHOOKS_BUSY with Retry-After, until one ends', async () => {
    // a complete body whose signature is wrong: 401 when a place is free to read it, 503 when none is
    const probe = () => request(server, 'POST', '/v1/hooks/forgejo', { raw: '{"ref":"x"}', headers: { 'content-type': 'application/json', 'x-forgejo-event': 'push', 'x-forgejo-signature': 'b'.repeat(64) } });
    const held: Socket[] = [];
    try {
      for (let sender = 0; sender < 8; sender += 1) {
        const { socket } = await headersOnly(server.url, `POST /v1/hooks/forgejo HTTP/1.1\r\nHost: -\r\nX-Forgejo-Event: push\r\nX-Forgejo-Signature: ${'c'.repeat(64)}\r\nContent-Length: 1000\r\n\r\n{"ref":`);
        held.push(socket);
      }
      // the server reads the 8 heads in its own time: ask until it has
      await expect.poll(async () => (await probe()).status, { timeout: 30_000, interval: 100 }).toBe(503);
      const busy = await probe();
      expect({ code: busy.json?.code, retryAfter: busy.headers.get('retry-after') }).toEqual({ code: 'WEBHOOKS_BUSY', retryAfter: '1' });
    } finally {
      for (const socket of held) socket.destroy();
    }
    await expect.poll(async () => (await probe()).status, { timeout: 30_000, interval: 100 }).toBe(401);
  }, 90_000);
});

describe('POST /v1/hooks/forgejo checks what a signature does not cover (review Z8, Z8-7)', () => {
  const hook = (body: string, headers: Record<string, string> = { 'x-forgejo-event': 'push' }) =>
    request(server, 'POST', '/v1/hooks/forgejo', { raw: body, headers: { 'content-type': 'application/json', 'x-forgejo-signature': sign(body), ...headers } });
  const push = (after: string, repository: Record<string, string>) => JSON.stringify({ ref: 'refs/heads/main', after, repository });
  const next = '1'.repeat(40);

  it('refuses a delivery that does not say its event, rather than take it for a push', async () => {
    const answer = await hook(push(next, {}), {});
    expect({ status: answer.status, code: answer.json?.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(answer.json.error).toContain('X-Forgejo-Event');
  });

  it('ignores a push to another repository, and one of the commit already served; rescans for a push to its own', async () => {
    const foreign = await hook(push(next, { full_name: 'someone-else/unrelated', clone_url: 'http://forge.example/someone-else/unrelated.git', html_url: 'http://forge.example/someone-else/unrelated' }));
    expect(foreign.status).toBe(202);
    expect(foreign.json).toMatchObject({ accepted: true, rescan: 'ignored' });
    expect(foreign.json.reason).toContain('someone-else/unrelated');
    const current = await hook(push(served, { clone_url: 'http://forge.example/agents/tools.git' }));
    expect(current.json).toMatchObject({ accepted: true, rescan: 'current' });
    // the same repository under another host name (Forgejo's public one, the gateway's internal one) is its own
    const own = await hook(push(next, { full_name: 'agents/tools', clone_url: 'https://git.example.org/Agents/Tools.git', ssh_url: 'git@git.example.org:agents/tools.git' }));
    expect(own.json).toMatchObject({ accepted: true, rescan: 'scheduled' });
  });
});
