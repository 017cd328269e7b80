import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

let server: Server | undefined;
let requests = 0;

/** A real HTTP server on 127.0.0.1 answering every request as `answer` does: what a wrong port or a proxy serves. */
async function serve(answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  requests = 0;
  server = createServer((_req, res) => {
    requests += 1;
    answer(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

// review userZ, Z7: a 200 web page was read as a stream that sent nothing, and tail reconnected twice a second without a word
describe('hldp tail --url at a server that is not the gateway', () => {
  it('stops with exit 2 when it answers 200 with a web page, naming the content type and the setting', async () => {
    const url = await serve((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'));
    const result = await runCli(['tail', '--url', url, '--count', '1'], { timeoutMs: 30_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('content type text/html, not an event stream');
    expect(result.stderr).toContain('--url (HLDP_URL)');
    expect(requests).toBe(1);
  });

  it('backs off, and says so, when an event stream ends before sending anything', async () => {
    const event = { id: 1, type: 'receipt.stored', at: '2026-12-05T00:00:00.000Z', data: { tool: 'echo', ok: true } };
    // three connections end at once, the fourth brings an event: tail prints it and stops
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(requests < 4 ? '' : `id: 1\nevent: receipt.stored\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const result = await runCli(['tail', '--url', url, '--count', '1', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(event);
    // the pause grows as after a refused connection; it was reset to 500 ms after each, without a word
    expect(result.stderr.match(/ended before sending anything; trying again in \d+ ms/g)).toEqual([500, 1000, 2000].map((ms) => `ended before sending anything; trying again in ${ms} ms`));
  });
});
