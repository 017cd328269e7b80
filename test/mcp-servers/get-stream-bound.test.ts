import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import type { CallOutcome } from '../../src/gateway/service/index.js';
import { openTestGateway } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { startMcpHttpStub } from '../helpers/mcp-http-stub.js';
import { mcpToolYaml, writeMcpConfig } from './support.js';

// Review Q, Q6: the SDK opens a standalone GET event stream after `notifications/initialized` and takes a request's
// answer from it. A server that accepted a tools/call's POST with 202 and sent the answer there was held only to the
// server-wide 64 MiB per event, not to the call's bound (12 × the tool's cap + 1 MiB): a tool capped at 64 KiB got a
// 16 MiB answer read whole and parsed (ok: true). A real local HTTP server implementing the transport.
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A server that answers every tools/call on its standalone GET stream with a text of `bytes` bytes; `getClosed` turns true when the gateway drops that stream. */
async function answeringOnGet(bytes: number): Promise<{ url: string; getClosed: () => boolean }> {
  let stream: ServerResponse | undefined;
  let getClosed = false;
  const onGet = (response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(': open\n\n');
    response.once('close', () => (getClosed = true));
    stream = response;
  };
  const server = await startMcpHttpStub(
    'on-get',
    (response, id) => {
      // the request's own POST is accepted; its answer goes on the GET stream
      response.writeHead(202).end();
      const answer = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'b'.repeat(bytes) }] } });
      stream?.write(`event: message\ndata: ${answer}\n\n`);
    },
    onGet,
  );
  cleanups.push(server.close);
  return { url: server.url, getClosed: () => getClosed };
}

async function callCapped(url: string): Promise<Receipt> {
  const temp = await makeTempDir('hldp-mcp-get-');
  cleanups.push(temp.cleanup);
  const repo = await initRepository(join(temp.path, 'repo'));
  // timeout 120 s: the answer must fail on its size, long before its deadline (the test's own is 60 s)
  await commitFiles(repo, { 'tools/capped/TOOL.hdlp': mcpToolYaml('capped', 'g', 'big', '{}', '{ max_output_bytes: 65536, timeout_ms: 120000 }') });
  const config = await writeMcpConfig(temp.path, { g: { url } });
  const opened = await openTestGateway(repo, { HLDP_CONFIG: config, ...(process.getuid?.() === 0 ? { HLDP_SANDBOX_RUN_AS: 'root' } : {}) });
  cleanups.push(opened.cleanup);
  const outcome = (await opened.gateway.call('capped', {})) as CallOutcome & { receipt: Receipt };
  return outcome.receipt;
}

describe('an HTTP MCP server answering tools/call on its standalone GET event stream', () => {
  it('is held to the call\'s bound there too: a 16 MiB answer to a tool capped at 64 KiB fails the call at 1,835,008 bytes, and the stream is dropped', async () => {
    const server = await answeringOnGet(16 * 1024 * 1024);
    const receipt = await callCapped(server.url);
    expect(receipt).toMatchObject({ ok: false, timed_out: false });
    expect(receipt.error).toContain('larger than 1835008 bytes in one event, the most any call in flight on this server may receive');
    expect(receipt.output_bytes ?? 0).toBeLessThan(65_537);
    // the server hears the stream close when the FIN reaches it, which may come after the receipt
    await expect.poll(() => server.getClosed(), { timeout: 15_000 }).toBe(true);
  }, 60_000);

  it('an answer within the bound there still comes through', async () => {
    const server = await answeringOnGet(1000);
    const receipt = await callCapped(server.url);
    expect(receipt).toMatchObject({ ok: true, output: 'b'.repeat(1000) });
  }, 60_000);
});
