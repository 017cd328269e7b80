import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { passOn } from '../helpers/git-http-front.js';
import { makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// A remote configured as https:// whose ref listing redirects to http:// was read in clear, pack and all (the
// definitions the gateway runs), without a word: the token was dropped, the content was not protected (review I F3;
// since 326cb67 the pack followed the redirect too). Such a redirect is now refused, and says why.
// The https front uses a self-signed certificate for 127.0.0.1 kept in test/fixtures/tls (for tests only), which the
// scanning process trusts through NODE_EXTRA_CA_CERTS.

const folder = testFolder();
const TLS = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
const trusted = { NODE_EXTRA_CA_CERTS: `${TLS}cert.pem` };
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function https(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer({ key: readFileSync(`${TLS}key.pem`), cert: readFileSync(`${TLS}cert.pem`) }, handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function realRepository(): Promise<string> {
  const { server, push } = await folder.serve({});
  await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
  return server.url;
}

describe('a remote given as https:// that redirects elsewhere', () => {
  it('is scanned over https when it passes every request on (the certificate is trusted: the control)', async () => {
    const real = await realRepository();
    const front = await https((request, response) => passOn(`${real}${request.url}`, request, response));
    const run = await folder.scan(`${front}/tools.git`, { env: trusted });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(['alpha']);
  });

  it('is refused, saying so, when its ref listing redirects to plain http, and nothing is fetched in clear', async () => {
    const real = await realRepository();
    const inClear: string[] = [];
    const plain = await folder.listen((request, response) => {
      inClear.push(`${request.method} ${request.url}`);
      passOn(`${real}${request.url}`, request, response);
    });
    const front = await https((request, response) => {
      if ((request.url ?? '').includes('/info/refs')) {
        response.writeHead(302, { location: `${plain}${request.url}` }).end();
        return;
      }
      passOn(`${real}${request.url}`, request, response);
    });
    const run = await folder.scan(`${front}/tools.git`, { env: { ...trusted, HLDP_REPO_TOKEN: 'tok-kept-secret' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('from https to plain http');
    expect(run.stderr).not.toContain('tok-kept-secret');
    expect(inClear).toEqual([]);
  });
});
