import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedFetch } from '../../src/mcp-servers/bounded-fetch.js';

// The fetch under the SDK's Streamable HTTP transport: an MCP server's answer is bounded per JSON message and per event
// of an event stream, never in all (an event stream lives as long as its session). A real local HTTP server answers.

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(contentType: string, body: string): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('boundedFetch', () => {
  it('passes an event stream of many events whose sum is past the bound, each within it', async () => {
    const events = Array.from({ length: 50 }, (_, index) => `event: message\r\ndata: ${'x'.repeat(40)}${index}\r\n\r\n`).join('');
    const response = await boundedFetch(100)(await serve('text/event-stream', events));
    expect(await response.text()).toBe(events);
  });

  it('fails an event stream at the event past the bound, however its lines are cut', async () => {
    const body = `data: small\n\ndata: ${'y'.repeat(60)}\ndata: ${'y'.repeat(60)}\n\n`;
    const response = await boundedFetch(100)(await serve('text/event-stream; charset=utf-8', body));
    await expect(response.text()).rejects.toThrow();
  });

  it('fails a JSON answer past the bound in all, and passes one within it', async () => {
    const json = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'z'.repeat(200) } });
    await expect((await boundedFetch(100)(await serve('application/json', json))).text()).rejects.toThrow();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    expect(await (await boundedFetch(1000)(await serve('application/json', json))).json()).toEqual(JSON.parse(json));
  });
});
