import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import http from 'isomorphic-git/http/node';
import { describe, expect, it } from 'vitest';
import { discoverUploadPack } from '../../src/scanner/sources/upload-pack.js';
import { passOn } from '../helpers/git-http-front.js';
import { makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// The HTTP client followed redirects itself and drained each redirect's body to its end, after the call had returned
// and outside every limit: a same-origin 302 whose body never ends was read for as long as the process lived (GBs
// a minute), and `hldp scan` printed its result and never exited (review G, F3). Redirects are now followed by the
// scanner: each 3xx is dropped with its connection, unread, and the hops share the request's limits.

const folder = testFolder();

/** Writes `chunk` for as long as the client reads; `closed` is set when the connection goes. */
function endless(response: ServerResponse, chunk: Buffer, seen: { closed: boolean }): void {
  const more = (): void => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', more);
  };
  response.once('close', () => (seen.closed = true));
  more();
}

/** A real repository behind `git http-backend`, with a token, and its first commit's tool. */
async function realRepository(token?: string): Promise<string> {
  const { server, push } = await folder.serve(token ? { token } : {});
  await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
  return server.url;
}

describe('a server whose ref listing is a same-origin 302 with a body that never ends', () => {
  for (const encoding of ['plain', 'gzip'] as const) {
    it(`hldp scan follows it, succeeds and exits, and the 302's connection is closed (${encoding} body)`, async () => {
      const real = await realRepository();
      const redirect = { closed: false };
      const chunk = encoding === 'gzip' ? gzipSync(Buffer.alloc(1024 * 1024)) : Buffer.alloc(64 * 1024);
      const front = await folder.listen((request, response) => {
        const path = request.url ?? '/';
        if (request.method === 'GET' && path.startsWith('/tools.git/info/refs')) {
          response.writeHead(302, { location: path.replace('/tools.git/', '/moved/tools.git/'), ...(encoding === 'gzip' ? { 'content-encoding': 'gzip' } : {}) });
          // each chunk a whole gzip member: decoded, 1 MiB of zeros apiece
          endless(response, chunk, redirect);
          return;
        }
        passOn(`${real}${path.replace('/moved/', '/')}`, request, response);
      });
      const run = await folder.scan(`${front}/tools.git`, { timeoutMs: 40_000 });
      expect(run.stderr).not.toContain('[runCli: killed');
      expect(run.code, run.stderr).toBe(0);
      expect((JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(['alpha']);
      expect(redirect.closed).toBe(true);
    }, 60_000);
  }

  it('in process: the listing returns and no connection is left reading the 302', async () => {
    const real = await realRepository();
    const redirect = { closed: false };
    const front = await folder.listen((request, response) => {
      const path = request.url ?? '/';
      if (path.startsWith('/tools.git/')) {
        response.writeHead(302, { location: path.replace('/tools.git/', '/moved/tools.git/') });
        endless(response, Buffer.alloc(64 * 1024), redirect);
        return;
      }
      passOn(`${real}${path.replace('/moved/', '/')}`, request, response);
    });
    const advertisement = await discoverUploadPack(http, `${front}/tools.git`, {});
    expect([...advertisement.refs.keys()]).toContain('refs/heads/main');
    await expect.poll(() => redirect.closed).toBe(true);
  });

  it('refuses a redirect loop plainly, naming the limit, and closes every hop', async () => {
    let open = 0;
    const front = await folder.listen((request, response) => {
      open++;
      response.once('close', () => open--);
      response.writeHead(302, { location: `${request.url}x` });
      endless(response, Buffer.alloc(64 * 1024), { closed: false });
    });
    await expect(discoverUploadPack(http, `${front}/tools.git`, {})).rejects.toThrow('redirected more than 5 times');
    await expect.poll(() => open).toBe(0);
  });
});

describe('a redirect and the token', () => {
  it("keeps the token for the same origin: a private repository's refs are listed through a 307", async () => {
    const real = await realRepository('s3cret');
    const front = await folder.listen((request, response) => {
      const path = request.url ?? '/';
      if (!path.startsWith('/moved/')) {
        request.resume();
        response.writeHead(307, { location: `/moved${path}` }).end();
        return;
      }
      passOn(`${real}${path.replace('/moved/', '/')}`, request, response);
    });
    const advertisement = await discoverUploadPack(http, `${front}/tools.git`, { Authorization: `Basic ${Buffer.from('x:s3cret').toString('base64')}` });
    expect([...advertisement.refs.keys()]).toContain('refs/heads/main');
  });

  it('sends no token to another origin (another port of the same host)', async () => {
    const seen: Array<string | undefined> = [];
    const other = await folder.listen((request, response) => {
      seen.push(request.headers.authorization);
      request.resume();
      response.writeHead(401).end();
    });
    const front = await folder.listen((request, response) => {
      request.resume();
      response.writeHead(302, { location: `${other}${request.url}` }).end();
    });
    await expect(discoverUploadPack(http, `${front}/tools.git`, { Authorization: 'Basic dG9rZW4=' })).rejects.toThrow('HTTP 401');
    expect(seen).toEqual([undefined]);
  });
});

// A repository that moved answers every old address with a 301 or 302. git follows the redirect of its first request
// (info/refs) and sends the rest to the new address; the scanner sent its POST to the old one, which a 301 or 302
// turns into a GET, and the clone failed with HTTP 400 (review H F4).
describe('a repository that moved: every old address redirected', () => {
  const scanned = async (url: string): Promise<string[]> => {
    const run = await folder.scan(url, { timeoutMs: 40_000 });
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
  };

  for (const status of [301, 302]) {
    it(`hldp scan clones it and fetches from the new address (${status}, same origin)`, async () => {
      const { server, push } = await folder.serve();
      await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const old: string[] = [];
      const front = await folder.listen((request, response) => {
        const path = request.url ?? '/';
        if (!path.startsWith('/moved/')) {
          old.push(`${request.method} ${path}`);
          request.resume();
          response.writeHead(status, { location: `/moved${path}` }).end();
          return;
        }
        passOn(`${server.url}${path.replace('/moved/', '/')}`, request, response);
      });
      expect(await scanned(`${front}/tools.git`)).toEqual(['alpha']);
      await push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      // a rescan: the head check, then a fetch of the new commit, again from where the listing was redirected
      expect(await scanned(`${front}/tools.git`)).toEqual(['alpha', 'beta']);
      expect(old.every((request) => request.startsWith('GET /tools.git/info/refs?service=git-upload-pack'))).toBe(true);
    }, 120_000);
  }

  it('fetches from another origin without the token given for the old one', async () => {
    const real = await realRepository();
    const seen: Array<string | undefined> = [];
    const moved = await folder.listen((request, response) => {
      seen.push(request.headers.authorization);
      passOn(`${real}${request.url ?? '/'}`, request, response);
    });
    const front = await folder.listen((request, response) => {
      request.resume();
      response.writeHead(301, { location: `${moved}${request.url}` }).end();
    });
    const url = new URL(`${front}/tools.git`);
    url.username = 'hldp';
    url.password = 's3cret';
    expect(await scanned(url.href)).toEqual(['alpha']);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((header) => header === undefined)).toBe(true);
  }, 120_000);

  it('refuses plainly a redirect of info/refs that does not say where the repository is', async () => {
    const front = await folder.listen((request, response) => {
      request.resume();
      if ((request.url ?? '').startsWith('/tools.git/')) response.writeHead(301, { location: '/elsewhere' }).end();
      // it answers as a git server would, so only where it is gives it away
      else response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' }).end('001e# service=git-upload-pack\n0000');
    });
    await expect(discoverUploadPack(http, `${front}/tools.git`, {})).rejects.toThrow('cannot tell where the repository moved');
  });
});
