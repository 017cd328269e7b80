import type { IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { passOn } from '../helpers/git-http-front.js';
import { makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// The HTTP client asked for gzip and undid it as it read, so the limits counted decoded bytes: a 1 MB answer on the
// wire came to a 900 MiB pack held ~3 times, inside the 1 GiB limit (review G, F5). The scanner now asks for no
// encoding (git's smart HTTP needs none), and refuses an answer encoded anyway before decoding a byte of it.

const folder = testFolder();

/**
 * A real repository (`git http-backend`) behind a front that passes every request on and gzips an answer when
 * `encodes` says so; it records each request's Accept-Encoding.
 */
async function served(encodes: (request: IncomingMessage) => boolean): Promise<{ url: string; asked: string[] }> {
  const { server, push } = await folder.serve();
  await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
  const real = server.url;
  const asked: string[] = [];
  const front = await folder.listen((request, response) => {
    asked.push(String(request.headers['accept-encoding'] ?? ''));
    const gzip = encodes(request);
    passOn(`${real}${request.url}`, request, response, { rewrite: (answer) => (gzip ? { ...answer, contentEncoding: 'gzip', body: gzipSync(answer.body) } : answer) });
  });
  return { url: `${front}/tools.git`, asked };
}

const scan = (url: string) => folder.scan(url, { timeoutMs: 50_000 });

describe("the bytes a remote's answer is limited by are the bytes it sends", () => {
  it('hldp scan asks every request for no Content-Encoding, and a server that gzips only when asked to sends none: the scan succeeds', async () => {
    const { url, asked } = await served((request) => /gzip/.test(String(request.headers['accept-encoding'] ?? '')));
    const run = await scan(url);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(['alpha']);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(new Set(asked)).toEqual(new Set(['identity']));
  }, 60_000);

  it('hldp scan refuses a pack answer gzipped though asked for none, with an error naming the encoding: exit 2', async () => {
    const { url } = await served((request) => request.method === 'POST');
    const run = await scan(url);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('answered with content-encoding "gzip" though asked for none (accept-encoding: identity)');
  }, 60_000);
});
