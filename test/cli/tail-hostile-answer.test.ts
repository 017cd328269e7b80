// Review Z13, Z13-3: what answers at `hldp tail --url` need not be the gateway (a proxy, a wrong port, a captive
// portal), and tail wrote its non-OK body, and a `reset` event's data, to the terminal raw (the title set, the screen
// cleared); it read a refusal's body whole however long it was, and buffered an event that never ended without bound.
// Now every notice goes through `terminalSafe`, a refusal's body is read to 4 KiB, and a stream holding more than
// 8 Mi characters of an event not yet ended is left with exit 2. Real HTTP servers, a real `hldp tail` process.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const HOSTILE = '\x1b]0;PWNED\x07\x1b[2J\x1b[Hbad gateway\u202e';
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

let server: Server | undefined;
let bytesSent = 0;

/** A real HTTP server on 127.0.0.1 answering every request as `answer` does. */
async function serve(answer: (res: ServerResponse) => void): Promise<string> {
  bytesSent = 0;
  server = createServer((request, res) => {
    request.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes `chunk` again and again, as fast as the client reads, until the connection closes. */
function endless(res: ServerResponse, chunk: string): void {
  const more = () => {
    while (!res.destroyed && res.write(chunk)) bytesSent += chunk.length;
    if (!res.destroyed) res.once('drain', more);
  };
  res.once('close', () => res.removeListener('drain', more));
  more();
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('hldp tail --url at a server that answers with terminal escapes or without end', () => {
  it("writes a refusal's body with its escapes shown, not sent to the terminal", async () => {
    const url = await serve((res) => res.writeHead(502, { 'content-type': 'text/html' }).end(HOSTILE));
    const run = await runCli(['tail', '--url', url, '--count', '1'], { timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    // on main: hldp tail: /v1/events answered HTTP 502: ESC ] 0 ; PWNED BEL ESC [ 2 J …
    expect(run.stderr).not.toMatch(CONTROLS);
    expect(run.stderr).toContain('hldp tail: /v1/events answered HTTP 502: \\x1b]0;PWNED\\x07\\x1b[2J\\x1b[Hbad gateway\\u202e');
  });

  it("quotes the head of a refusal whose body never ends, and stops", async () => {
    const url = await serve((res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      endless(res, 'unavailable '.repeat(5000));
    });
    const run = await runCli(['tail', '--url', url, '--count', '1'], { timeoutMs: 50_000 });
    // on main: the body was read into memory until the run was killed
    expect(run.stderr).not.toContain('[runCli: killed');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('hldp tail: /v1/events answered HTTP 503: unavailable unavailable');
  }, 60_000);

  it('stops, saying so, when one event of the stream never ends', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: receipt.stored\ndata: ');
      endless(res, 'x'.repeat(64 * 1024));
    });
    const run = await runCli(['tail', '--url', url, '--count', '1'], { timeoutMs: 50_000 });
    // on main: the parser's buffer grew until the run was killed
    expect(run.stderr).not.toContain('[runCli: killed');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/sent more than 8388608 characters without ending an event .*: stopped; is --url \(HLDP_URL\) the gateway's address\?/);
    // it stopped reading soon after the bound: not the whole of what a server sends
    expect(bytesSent).toBeLessThan(256 * 1024 * 1024);
  }, 60_000);

  it("writes a reset event's data with its escapes shown", async () => {
    const event = { id: 2, type: 'receipt.stored', at: '2026-12-05T00:00:00.000Z', data: { tool: 'echo', ok: true } };
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: reset\ndata: ${HOSTILE}\n\nid: 2\nevent: receipt.stored\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const run = await runCli(['tail', '--url', url, '--count', '1', '--json'], { timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(event);
    expect(run.stderr).not.toMatch(CONTROLS);
    expect(run.stderr).toContain('hldp tail: some events were missed: \\x1b]0;PWNED');
  });
});
