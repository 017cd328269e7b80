import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBound, boundedFetch } from '../../src/mcp-servers/bounded-fetch.js';
import { runs } from '../helpers/property-runs.js';

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

  it('passes an event stream whose lines end in a lone CR, many events past the bound in all, each within it (review O, O12)', async () => {
    const events = Array.from({ length: 50 }, (_, index) => `event: message\rdata: ${'x'.repeat(40)}${index}\r\r`).join('');
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

describe('boundedFetch and a server that streams faster than the gateway reads (review K, K15)', () => {
  // the SDK reads what is waiting in one run of microtasks: pieces of 16 KiB, with a turn of the loop at least every
  // 10 ms of reading, let the gateway's timers (a call's deadline) fire while a server floods the stream
  it('hands the answer on in pieces of at most 16 KiB, all of it, in order', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024);
    for (let index = 0; index < body.length; index += 1) body[index] = 0x61 + (index % 26);
    const url = await serve('text/event-stream', body.toString('latin1'));
    const reader = (await boundedFetch(4 * 1024 * 1024)(url)).body!.getReader();
    const pieces: Uint8Array[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) pieces.push(next.value);
    expect(Math.max(...pieces.map((piece) => piece.byteLength))).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.concat(pieces).equals(body)).toBe(true);
  });

  it('lets the loop turn while it hands on what is waiting: a timer set before the reading fires before it ends', async () => {
    const url = await serve('text/event-stream', 'x'.repeat(2 * 1024 * 1024));
    const response = await boundedFetch(16 * 1024 * 1024)(url);
    // everything has arrived and waits to be read
    await new Promise((resolve) => setTimeout(resolve, 300));
    const reader = response.body!.getReader();
    let fired = false;
    let readWhenFired = -1;
    let read = 0;
    setTimeout(() => ((fired = true), (readWhenFired = read)), 0);
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      read += next.value.byteLength;
      // the SDK's parsing of a piece, a few ms of work
      const until = performance.now() + 2;
      while (performance.now() < until);
    }
    expect(fired).toBe(true);
    expect(readWhenFired).toBeLessThan(read);
  });
});

describe('boundedFetch and a cancelled call whose answer has arrived in part (review K, K15)', () => {
  // found by CI: the server flooded pings; what had been read of the stream and not yet handed on went on to the SDK
  // after the call's notifications/cancelled, whose answers to those pings then held the server's sockets
  it('hands on nothing more of the answer once the call is cancelled', async () => {
    const url = await serve('text/event-stream', `event: message\ndata: ${'p'.repeat(60)}\n\n`.repeat(30_000));
    const fetching = boundedFetch(16 * 1024 * 1024);
    const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const reader = (await fetching(url, post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }))).body!.getReader();
    // everything has arrived and waits: a chunk of it larger than a piece is held in part
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await reader.read()).done).toBe(false);
    await fetching(url, post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })).then((response) => response.text());
    let after = 0;
    await expect((async () => {
      for (let next = await reader.read(); !next.done; next = await reader.read()) after += next.value.byteLength;
    })()).rejects.toThrow(/cancelled/);
    expect(after).toBe(0);
  });
});

describe('boundedFetch against a server that never answers what the client POSTs (review K, K15)', () => {
  // a server that takes every POST and never answers it: each held one of the gateway's sockets, without end
  async function holding(): Promise<{ url: string; open: () => number }> {
    let held = 0;
    server = createServer((request, response) => {
      request.resume();
      held += 1;
      response.on('close', () => (held -= 1));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, open: () => held };
  }
  const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('gives up on a POSTed answer or notification the server does not take, and its socket is let go', async () => {
    const { url, open } = await holding();
    const fetching = boundedFetch(1000, {}, { answerTimeoutMs: 300 });
    const answers = Array.from({ length: 5 }, (_, id) => fetching(url, post({ jsonrpc: '2.0', id, result: {} })));
    const notification = fetching(url, post({ jsonrpc: '2.0', method: 'notifications/progress', params: {} }));
    for (const sent of [...answers, notification]) await expect(sent).rejects.toThrow();
    await expect.poll(open, { timeout: 5000 }).toBe(0);
  });

  it('keeps at most its limit of exchanges open with one server, and says why it sends no more', async () => {
    const { url, open } = await holding();
    const fetching = boundedFetch(1000, {}, { answerTimeoutMs: 500, open: 4 });
    // requests (a method and an id) wait for their answer as long as their call does: they are what fills the limit
    const requests = Array.from({ length: 4 }, (_, id) => fetching(url, post({ jsonrpc: '2.0', id, method: 'tools/call', params: {} })).catch((error: Error) => error));
    await expect.poll(open, { timeout: 5000 }).toBe(4);
    await expect(fetching(url, post({ jsonrpc: '2.0', id: 99, result: {} }))).rejects.toThrow(/leaves 4 exchanges unanswered/);
    expect(open()).toBe(4);
    // once they end (the server goes away), they no longer count
    server!.closeAllConnections();
    await Promise.all(requests);
    await expect(fetching(url, post({ jsonrpc: '2.0', id: 100, result: {} }))).rejects.not.toThrow(/exchanges unanswered/);
  });
});

describe('boundedFetch while garbage collection runs (review S, S1)', () => {
  it('ends an endless answer to a notification at its deadline, however often the heap is collected', async () => {
    // Node 20's AbortSignal.any holds its sources weakly: an AbortSignal.timeout among them was collected with its timer
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.flushHeaders();
        const beat = setInterval(() => response.write(`: ${'p'.repeat(8000)}\n\n`), 5);
        response.on('close', () => clearInterval(beat));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const collect = collector();
    const collecting = setInterval(collect, 20);
    try {
      const read = (async () => {
        const response = await boundedFetch(1 << 20, {}, { answerTimeoutMs: 2000 })(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
        const reader = response.body!.getReader();
        for (;;) if ((await reader.read()).done) return 'ended';
      })();
      // the deadline is 2 s (the headers come well before it); 12 s is only how long this test waits before calling the body endless
      const outcome = await Promise.race([read.catch((error: Error) => error.name), new Promise((resolve) => setTimeout(() => resolve('still reading'), 12_000))]);
      expect(outcome).toBe('TimeoutError');
    } finally {
      clearInterval(collecting);
      server!.closeAllConnections();
    }
  });
});

/** The engine's garbage collector, made callable in this process (as `node --expose-gc` would). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('EventBound: whether the SDK would resume an event stream (an event of it carries an id)', () => {
  it('sees an id field with a value, however the stream is cut into chunks', () => {
    // the reference: lines of the stream (ended by CRLF, LF or a lone CR, as the event stream format has it), one of
    // which is "id:", at most one space, then a value
    const resumable = (text: string): boolean => text.split(/\r\n|\r|\n/).some((line) => /^id:( .|[^ ])/s.test(line));
    const piece = fc.oneof(fc.constantFrom('id:', 'id: ', 'id', ':', ' ', '7', 'data: ', '\n', '\r\n', '\r', 'event: message', 'x'), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), fc.array(fc.nat(60), { maxLength: 6 }), (pieces, cuts) => {
        const bytes = Buffer.from(pieces.join(''), 'utf8');
        const bound = new EventBound(1 << 20);
        let at = 0;
        for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
          const to = Math.min(Math.max(cut, at), bytes.length);
          bound.over(bytes.subarray(at, to));
          at = to;
        }
        expect(bound.resumable).toBe(resumable(bytes.toString('utf8')));
      }),
      { numRuns: runs(500) },
    );
  });
});

describe('boundedFetch and a cancelled request', () => {
  it('drops the answer of a request once notifications/cancelled names it, and tells no one it ended', async () => {
    let closed = false;
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number };
        if (message.id === undefined) return void response.writeHead(202).end();
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': open\n\n');
        response.once('close', () => (closed = true));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const ended: unknown[] = [];
    const fetch = boundedFetch(100, { onEnded: (id, how) => ended.push([id, how]) });
    const post = (body: unknown) => fetch(url, { method: 'POST', body: JSON.stringify(body) });
    const answer = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} });
    const reading = answer.text().then(
      () => 'read to its end',
      (error: unknown) => error,
    );
    await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    expect(await reading).toBeInstanceOf(Error);
    await new Promise<void>((resolve) => {
      const wait = (): unknown => (closed ? resolve() : setTimeout(wait, 10));
      wait();
    });
    expect(ended).toEqual([]);
    server.closeAllConnections();
  });
});
