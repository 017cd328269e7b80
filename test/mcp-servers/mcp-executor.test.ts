import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import type { CallOutcome, Gateway } from '../../src/gateway/service/index.js';
import { openTestGateway } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { startMcpHttpStub, type McpHttpStub } from '../helpers/mcp-http-stub.js';
import { describeWithBubblewrap } from '../sandbox/support/bubblewrap.js';
import { DEEP, EVERYTHING, FILESYSTEM, RECORDER, mcpToolYaml, nodeServer, startEverythingHttp, writeMcpConfig } from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function receiptOf(outcome: CallOutcome): Receipt {
  if (outcome.kind !== 'receipt') throw new Error(`expected a receipt, got ${outcome.kind}: ${JSON.stringify(outcome)}`);
  return outcome.receipt;
}

/** A gateway over a committed repository of `tools`, with these `mcp_servers`. */
async function gatewayWith(servers: Record<string, Record<string, unknown>>, tools: Record<string, string>, env: NodeJS.ProcessEnv = {}): Promise<{ gateway: Gateway; workspace: string; folder: string }> {
  const temp = await makeTempDir('hldp-mcp-exec-');
  cleanups.push(temp.cleanup);
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, Object.fromEntries(Object.entries(tools).map(([name, text]) => [`tools/${name}/TOOL.hdlp`, text])));
  const config = await writeMcpConfig(temp.path, servers);
  // these servers write records into the test's own (root's) folders: run as root, as before sandbox.run_as; a root
  // gateway's MCP servers running as nobody is test/sandbox/run-as.test.ts
  const opened = await openTestGateway(repo, { HLDP_CONFIG: config, ...(process.getuid?.() === 0 ? { HLDP_SANDBOX_RUN_AS: 'root' } : {}), ...env });
  cleanups.push(opened.cleanup);
  return { gateway: opened.gateway, workspace: opened.workspace, folder: temp.path };
}

const serverOf = (gateway: Gateway, name: string) => gateway.mcpServers.status().find((server) => server.name === name)!;

const LONG = '{ duration: { type: number, required: true }, steps: { type: integer, required: true } }';

describe('the mcp executor over stdio (server-everything)', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    ({ gateway } = await gatewayWith(
      { everything: nodeServer(EVERYTHING) },
      {
        echo: mcpToolYaml('echo', 'everything', 'echo', '{ message: { type: string, required: true } }'),
        'small-echo': mcpToolYaml('small-echo', 'everything', 'echo', '{ message: { type: string, required: true } }', '{ max_output_bytes: 256 }'),
        weather: mcpToolYaml('weather', 'everything', 'get-structured-content', '{ location: { type: string, required: true } }'),
        image: mcpToolYaml('image', 'everything', 'get-tiny-image', '{}'),
        // the server marks it readOnlyHint and idempotentHint, as hldp import mcp carries over
        long: mcpToolYaml('long', 'everything', 'trigger-long-running-operation', LONG, '{ timeout_ms: 1000, max_timeout_ms: 20000 }', { idempotent: true }),
        'long-undeclared': mcpToolYaml('long-undeclared', 'everything', 'trigger-long-running-operation', LONG, '{ timeout_ms: 1000, max_timeout_ms: 20000 }'),
        missing: mcpToolYaml('missing', 'everything', 'no-such-tool', '{}'),
        ghost: mcpToolYaml('ghost', 'ghost', 'echo', '{}'),
      },
    ));
  });

  it('returns the server’s raw text, and stores the receipt before returning it', async () => {
    const receipt = receiptOf(await gateway.call('echo', { message: 'hello 你好 привет' }));
    expect(receipt).toMatchObject({ ok: true, executor: 'mcp', method: 'tools/call', output: 'Echo: hello 你好 привет', error: null, code: null, timed_out: false });
    expect(await gateway.store.receipts.get(receipt.id)).toEqual(receipt);
  });

  it('keeps structuredContent whole in the receipt, beside the raw text', async () => {
    const receipt = receiptOf(await gateway.call('weather', { location: 'Chicago' }));
    expect(receipt.structured_content).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    expect(JSON.parse(receipt.output)).toEqual(receipt.structured_content);
  });

  it('lists content that is not text as attachments, out of the output', async () => {
    const receipt = receiptOf(await gateway.call('image', {}));
    expect(receipt.ok).toBe(true);
    expect(receipt.output).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(receipt.attachments).toEqual([{ index: 1, type: 'image', mime_type: 'image/png', bytes: expect.any(Number), data: expect.any(String) }]);
  });

  it('bounds the output by max_output_bytes, the cut marked and counted', async () => {
    const receipt = receiptOf(await gateway.call('small-echo', { message: 'x'.repeat(5000) }));
    expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(256);
    expect(receipt.output).toMatch(/\[… \d+ bytes cut of 5006 …\]/);
    expect(receipt).toMatchObject({ ok: true, output_bytes: 5006, cut_bytes: expect.any(Number) });
  });

  it('returns ok: false with the server’s raw error for a JSON-RPC error', async () => {
    const receipt = receiptOf(await gateway.call('missing', {}));
    expect(receipt).toMatchObject({ ok: false, code: 'MCP_ERROR' });
    expect(receipt.error).toMatch(/no-such-tool/);
  });

  it('names the config key to add for a server that is not configured', async () => {
    const receipt = receiptOf(await gateway.call('ghost', {}));
    expect(receipt).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
    expect(receipt.error).toMatch(/no MCP server named 'ghost' is configured; add mcp_servers.ghost .* \(configured: everything\)/);
  });

  it('cancels a slow tool at our deadline, and the server goes on serving', async () => {
    const started = performance.now();
    const receipt = receiptOf(await gateway.call('long', { duration: 10, steps: 10 }));
    expect(receipt).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true, timeout_ms: 1000 });
    expect(receipt.error).toMatch(/timed out after 1000 ms; the call was cancelled on MCP server 'everything' \(notifications\/cancelled\)/);
    expect(performance.now() - started).toBeLessThan(9000);
    expect(receiptOf(await gateway.call('echo', { message: 'still here' })).output).toBe('Echo: still here');
  });

  it('honours a longer per-call deadline: the long task completes', async () => {
    const receipt = receiptOf(await gateway.call('long', { duration: 1.5, steps: 3 }, { timeoutMs: 15_000 }));
    expect(receipt).toMatchObject({ ok: true, timeout_ms: 15_000, output: 'Long running operation completed. Duration: 1.5 seconds, Steps: 3.' });
    expect(await gateway.call('long', { duration: 1, steps: 1 }, { timeoutMs: 20_001 })).toMatchObject({ kind: 'timeout_not_allowed', allowed_ms: 20_000 });
  });

  it('shares one server process between calls, concurrent ones included', async () => {
    receiptOf(await gateway.call('echo', { message: 'warm' }));
    const { pid } = serverOf(gateway, 'everything');
    const receipts = await Promise.all(Array.from({ length: 8 }, (_, index) => gateway.call('echo', { message: `m${index}` }).then(receiptOf)));
    expect(receipts.map((receipt) => receipt.output)).toEqual(Array.from({ length: 8 }, (_, index) => `Echo: m${index}`));
    expect(serverOf(gateway, 'everything')).toMatchObject({ state: 'running', pid });
  });

  it('starts the server again, transparently, when it was killed between calls', async () => {
    receiptOf(await gateway.call('echo', { message: 'before' }));
    const before = serverOf(gateway, 'everything');
    process.kill(before.pid!, 'SIGKILL');
    await vi.waitFor(() => expect(serverOf(gateway, 'everything').state).toBe('stopped'), { timeout: 10_000 });
    const receipt = receiptOf(await gateway.call('echo', { message: 'after' }));
    expect(receipt).toMatchObject({ ok: true, output: 'Echo: after' });
    expect(receipt.stderr).toMatch(/MCP server 'everything' was killed by SIGKILL since its last call; it was started again/);
    expect(serverOf(gateway, 'everything')).toMatchObject({ state: 'running', restarts: before.restarts + 1 });
    expect(serverOf(gateway, 'everything').pid).not.toBe(before.pid);
  });

  it('restarts a server killed mid-call and retries that call once, when its tool declares a second run safe', async () => {
    receiptOf(await gateway.call('echo', { message: 'before' }));
    const before = serverOf(gateway, 'everything');
    const running = gateway.call('long', { duration: 1, steps: 2 }, { timeoutMs: 20_000 });
    await vi.waitFor(() => expect(serverOf(gateway, 'everything').calls_in_flight).toBe(1));
    process.kill(before.pid!, 'SIGKILL');
    const receipt = receiptOf(await running);
    expect(receipt).toMatchObject({ ok: true, output: 'Long running operation completed. Duration: 1 seconds, Steps: 2.' });
    expect(receipt.stderr).toMatch(/MCP server 'everything' was killed by SIGKILL during the call; it was started again and the call retried once/);
    expect(serverOf(gateway, 'everything').restarts).toBe(before.restarts + 1);
  });

  it('does not retry a call killed mid-call whose tool does not declare a second run safe: a complete receipt says it may or may not have run', async () => {
    receiptOf(await gateway.call('echo', { message: 'before' }));
    const before = serverOf(gateway, 'everything');
    const progress: unknown[] = [];
    const running = gateway.call('long-undeclared', { duration: 2, steps: 4 }, { timeoutMs: 20_000, onProgress: (update) => progress.push(update) });
    // killed once the operation is under way on the server
    await vi.waitFor(() => expect(progress.length).toBeGreaterThan(0), { timeout: 15_000 });
    process.kill(before.pid!, 'SIGKILL');
    const receipt = receiptOf(await running);
    expect(receipt).toMatchObject({ ok: false, code: 'CONNECTION_FAILED', tool: 'long-undeclared', output: '', exit_code: null, timed_out: false });
    expect(receipt.error).toMatch(/MCP server 'everything' was killed by SIGKILL during the call of 'trigger-long-running-operation': the call may or may not have run, and it was not retried/);
    expect(receipt.error).toMatch(/mcp\.idempotent: true/);
    expect(await gateway.store.receipts.get(receipt.id)).toEqual(receipt);
    // nothing was started again for it: the next call starts the server, and counts the restart
    expect(serverOf(gateway, 'everything')).toMatchObject({ state: 'stopped', restarts: before.restarts });
    expect(receiptOf(await gateway.call('echo', { message: 'after' }))).toMatchObject({ ok: true, output: 'Echo: after' });
    expect(serverOf(gateway, 'everything')).toMatchObject({ state: 'running', restarts: before.restarts + 1 });
    expect(serverOf(gateway, 'everything').pid).not.toBe(before.pid);
  });
});

describe('the mcp executor over stdio (server-filesystem)', () => {
  let gateway: Gateway;
  let allowed: string;
  beforeAll(async () => {
    const temp = await makeTempDir('hldp-mcp-fs-');
    cleanups.push(temp.cleanup);
    allowed = join(temp.path, 'allowed');
    await mkdir(allowed);
    await writeFile(join(allowed, 'notes.txt'), 'line one\nline two\n');
    await writeFile(join(temp.path, 'outside.txt'), 'secret outside\n');
    ({ gateway } = await gatewayWith(
      { files: nodeServer(FILESYSTEM, [allowed], {}, [allowed]) },
      {
        'fs-read': mcpToolYaml('fs-read', 'files', 'read_text_file', '{ path: { type: string, required: true } }'),
        'fs-write': mcpToolYaml('fs-write', 'files', 'write_file', '{ path: { type: string, required: true }, content: { type: string, required: true } }', '{ require_confirm: true }'),
      },
    ));
  });

  it('returns a file’s text raw', async () => {
    expect(receiptOf(await gateway.call('fs-read', { path: join(allowed, 'notes.txt') }))).toMatchObject({ ok: true, output: 'line one\nline two\n' });
  });

  it('reads a 20 MB file through the server as one 41 MB line of JSON-RPC (its text twice), its output cut to max_output_bytes', async () => {
    // the SDK's read buffer joined and searched its whole buffer at each 64 KiB chunk of such a line: minutes of the
    // event loop for a large log (512 s for 64 MiB); now each chunk is looked at once, and its long strings cut as they
    // come (review S, S9); the text counts once, not again for structuredContent's copy of it (review userZ11, U11-21)
    const text = `${'a log line of a large file\n'.repeat(750_000)}`;
    await writeFile(join(allowed, 'large.log'), text);
    const receipt = receiptOf(await gateway.call('fs-read', { path: join(allowed, 'large.log') }));
    expect(receipt, JSON.stringify({ ...receipt, output: receipt.output.slice(0, 200), error: receipt.error?.slice(0, 500) })).toMatchObject({ ok: true });
    expect(receipt.output_bytes).toBe(text.length);
    expect(receipt.output.startsWith('a log line of a large file\n')).toBe(true);
    expect(receipt.output).toMatch(/\[… \d+ bytes cut of \d+ …\]/);
    // twice the file: an 82 MB line, past the 64 MiB a message may hold whole: read and cut as it comes all the same
    await writeFile(join(allowed, 'large.log'), text + text);
    const twice = receiptOf(await gateway.call('fs-read', { path: join(allowed, 'large.log') }));
    expect(twice).toMatchObject({ ok: true });
    expect(twice.output_bytes).toBe(2 * text.length);
  }, 90_000);

  it('returns the server’s error as ok: false with its raw text (isError)', async () => {
    const receipt = receiptOf(await gateway.call('fs-read', { path: join(allowed, '..', 'outside.txt') }));
    expect(receipt).toMatchObject({ ok: false, code: 'MCP_ERROR', output: '' });
    expect(receipt.error).toMatch(/^Access denied - path outside allowed directories/);
  });

  it('waits for confirmation like any other executor, then runs exactly that call', async () => {
    const path = join(allowed, 'written.txt');
    const pending = await gateway.call('fs-write', { path, content: 'confirmed\n' });
    if (pending.kind !== 'confirmation_required') throw new Error(pending.kind);
    await expect(readFile(path, 'utf8')).rejects.toThrow();
    expect(receiptOf(await gateway.confirm(pending.confirmation.token!))).toMatchObject({ ok: true, confirmation: pending.confirmation.id, approval: { status: 'approved', via: 'confirm' } });
    expect(await readFile(path, 'utf8')).toBe('confirmed\n');
  });
});

describe('the mcp executor over Streamable HTTP (server-everything)', () => {
  it('calls the server through the SDK client, and reconnects after the server restarts', async () => {
    const first = await startEverythingHttp();
    cleanups.push(first.close);
    const { gateway } = await gatewayWith(
      { remote: { url: first.url } },
      {
        sum: mcpToolYaml('sum', 'remote', 'get-sum', '{ a: { type: number, required: true }, b: { type: number, required: true } }'),
        weather: mcpToolYaml('weather', 'remote', 'get-structured-content', '{ location: { type: string, required: true } }'),
      },
    );
    expect(receiptOf(await gateway.call('sum', { a: 2, b: 40 }))).toMatchObject({ ok: true, output: 'The sum of 2 and 40 is 42.' });
    expect(receiptOf(await gateway.call('weather', { location: 'Los Angeles' })).structured_content).toEqual({ temperature: 73, conditions: 'Sunny / Clear', humidity: 48 });
    expect(serverOf(gateway, 'remote')).toMatchObject({ transport: 'http', state: 'running' });
  });
});

/**
 * A local server implementing the Streamable HTTP transport's contract as far as a call needs: `initialize` answered
 * in JSON, notifications accepted, and each `tools/call` answered as an event stream by `answer` (the request's id).
 * `closed` turns true when the gateway drops a call's answer.
 */
async function streamingServer(answer: (response: ServerResponse, id: number) => void): Promise<McpHttpStub> {
  const server = await startMcpHttpStub('streaming', (response, id) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    answer(response, id);
  });
  cleanups.push(server.close);
  return server;
}

/** Writes `chunk` again and again, as fast as the gateway reads it, or every `everyMs`, until the answer is dropped. */
function endlessly(response: ServerResponse, chunk: Buffer, everyMs?: number): void {
  if (everyMs !== undefined) {
    const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write(chunk)), everyMs);
    return;
  }
  const more = (): void => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', more);
  };
  more();
}

const callWithin = (server: string, timeoutMs: number): Record<string, string> => ({ spew: mcpToolYaml('spew', server, 'spew', '{}', `{ timeout_ms: ${timeoutMs} }`) });

describe('the mcp executor over Streamable HTTP, against a local server implementing the transport whose answer goes wrong', () => {
  it('fails the call once one event passes the bound its tool\'s cap sets (1,835,008 bytes for the default 64 KiB; 64 MiB before review O, O14), and drops the stream: the gateway no longer buffers it without end, past the call\'s deadline', async () => {
    // the SDK reads an event stream without a limit: one endless event grew the gateway's memory past the call's
    // deadline (its receipt said TIMEOUT while the download went on); then the SDK left the call to its deadline
    const server = await streamingServer((response) => {
      response.write('event: message\ndata: ');
      endlessly(response, Buffer.alloc(64 * 1024, 0x61));
    });
    const { gateway } = await gatewayWith({ endless: { url: server.url } }, callWithin('endless', 120_000));
    // far within its deadline of 120 s: the test's own is 60 s
    const receipt = receiptOf(await gateway.call('spew', {}));
    expect(receipt).toMatchObject({ ok: false, timed_out: false, code: 'CONNECTION_FAILED' });
    expect(receipt.error).toContain('larger than 1835008 bytes in one event, the most a call of its tool may receive');
    expect(receipt.error).toContain('may or may not have run');
    await vi.waitFor(() => expect(server.closed()).toBe(true), { timeout: 10_000 });
  }, 60_000);

  it('drops the answer of a call whose deadline passed: the server sees its stream closed, not read on', async () => {
    // one small piece every 50 ms: read on after the deadline, it would take the SDK ~55 minutes to reach the bound
    const server = await streamingServer((response) => {
      response.write('event: message\ndata: ');
      endlessly(response, Buffer.alloc(1024, 0x61), 50);
    });
    const { gateway } = await gatewayWith({ trickle: { url: server.url } }, callWithin('trickle', 1_000));
    const receipt = receiptOf(await gateway.call('spew', {}));
    expect(receipt).toMatchObject({ ok: false, timed_out: true });
    await vi.waitFor(() => expect(server.closed()).toBe(true), { timeout: 10_000 });
  }, 30_000);

  it.each([
    {
      how: 'the stream ends without the answer, where the SDK left it to its deadline',
      server: 'mute',
      answer: (response: ServerResponse) => response.end(': nothing to say\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}\n\n'),
      error: "MCP server 'mute': the event stream of its answer to tools/call of 'spew' ended before the answer came",
    },
    {
      how: 'the connection drops mid-event',
      server: 'drop',
      answer: (response: ServerResponse) => {
        response.write('event: message\ndata: {"jsonrpc":');
        setTimeout(() => response.destroy(), 50);
      },
      error: "the event stream of its answer to tools/call of 'spew' failed",
    },
  ])('fails the call at once when $how', async ({ server: name, answer, error }) => {
    const server = await streamingServer(answer);
    const { gateway } = await gatewayWith({ [name]: { url: server.url } }, callWithin(name, 120_000));
    const receipt = receiptOf(await gateway.call('spew', {}));
    expect(receipt).toMatchObject({ ok: false, timed_out: false, code: 'CONNECTION_FAILED' });
    expect(receipt.error).toContain(error);
  }, 60_000);

  it('returns the answer that came just before the stream ended, in the same piece', async () => {
    const server = await streamingServer((response, id) => {
      const result = { content: [{ type: 'text', text: 'last words' }] };
      response.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
    });
    const { gateway } = await gatewayWith({ brief: { url: server.url } }, callWithin('brief', 120_000));
    const receipt = receiptOf(await gateway.call('spew', {}));
    expect(receipt).toMatchObject({ ok: true, output: 'last words' });
  }, 60_000);
});

describe('the mcp executor and the server’s side of a call (a recording fixture server)', () => {
  let gateway: Gateway;
  let record: string;
  beforeAll(async () => {
    const temp = await makeTempDir('hldp-mcp-recorder-');
    cleanups.push(temp.cleanup);
    record = join(temp.path, 'record.log');
    ({ gateway } = await gatewayWith(
      {
        recorder: nodeServer(RECORDER, [], { env: { RECORD_FILE: record, SERVER_SECRET: '${HLDP_TEST_MCP_SECRET}' } }, [temp.path]),
        broken: { command: '/no/such/mcp-server' },
      },
      {
        wait: mcpToolYaml('wait', 'recorder', 'wait', '{ ms: { type: integer, required: true } }', '{ timeout_ms: 500, max_timeout_ms: 60000 }'),
        crash: mcpToolYaml('crash', 'recorder', 'exit', '{}'),
        'crash-idempotent': mcpToolYaml('crash-idempotent', 'recorder', 'exit', '{}', '{}', { idempotent: true }),
        'slow-write': mcpToolYaml('slow-write', 'recorder', 'wait', '{ ms: { type: integer, required: true } }', '{ timeout_ms: 60000 }'),
        report: mcpToolYaml('report', 'recorder', 'report', '{ count: { type: integer, required: true } }'),
        secret: mcpToolYaml('secret', 'recorder', 'secret', '{ name: { type: string, required: true } }'),
        broken: mcpToolYaml('broken', 'broken', 'anything', '{}'),
      },
      { HLDP_TEST_MCP_SECRET: 'mcp-secret-0123456789' },
    ));
  });

  it('sends notifications/cancelled at our deadline, and the server sees its request cancelled', async () => {
    // started first: a cold start counts against the deadline too, and would leave no time to send the call
    expect(receiptOf(await gateway.call('wait', { ms: 1 }, { timeoutMs: 60_000 }))).toMatchObject({ ok: true, output: 'waited 1 ms' });
    await vi.waitFor(async () => expect(await readFile(record, 'utf8')).toMatch(/^started/m));
    expect(receiptOf(await gateway.call('wait', { ms: 30_000 }))).toMatchObject({ ok: false, code: 'TIMEOUT' });
    await vi.waitFor(async () => expect(await readFile(record, 'utf8')).toMatch(/^cancelled \d+: .*timed out after 500 ms/m), { timeout: 10_000 });
  });

  it('hands on every progress notification, also the ones that arrive in one chunk with the result', async () => {
    for (let run = 0; run < 5; run += 1) {
      const progress: unknown[] = [];
      const receipt = receiptOf(await gateway.call('report', { count: 5 }, { onProgress: (update) => progress.push(update) }));
      expect(receipt.output).toBe('reported 5');
      expect(progress).toEqual([1, 2, 3, 4, 5].map((step) => ({ progress: step, total: 5, message: `step ${step}` })));
    }
  });

  it('retries a call of an idempotent tool that kills the server only once, and says so', async () => {
    const exits = ((await readFile(record, 'utf8').catch(() => '')).match(/^exiting$/gm) ?? []).length;
    const receipt = receiptOf(await gateway.call('crash-idempotent', {}));
    expect(receipt).toMatchObject({ ok: false, code: 'CONNECTION_FAILED' });
    expect(receipt.error).toMatch(/MCP server 'recorder' exited with code 3 during the call, again after a restart; not retried a second time/);
    expect((await readFile(record, 'utf8')).match(/^exiting$/gm)).toHaveLength(exits + 2);
  });

  it('runs a call that kills the server of a tool not declared idempotent once, and says it may or may not have run', async () => {
    const exits = ((await readFile(record, 'utf8').catch(() => '')).match(/^exiting$/gm) ?? []).length;
    const receipt = receiptOf(await gateway.call('crash', {}));
    expect(receipt).toMatchObject({ ok: false, code: 'CONNECTION_FAILED' });
    expect(receipt.error).toMatch(/MCP server 'recorder' exited with code 3 during the call of 'exit': the call may or may not have run, and it was not retried/);
    expect((await readFile(record, 'utf8')).match(/^exiting$/gm)).toHaveLength(exits + 1);
  });

  it('runs a call of a tool not declared idempotent once when its server is killed mid-call', async () => {
    // warm: the server is up before the call, so that the kill lands while it holds the request
    expect(receiptOf(await gateway.call('wait', { ms: 1 }, { timeoutMs: 60_000 }))).toMatchObject({ ok: true });
    const starts = async (): Promise<number> => ((await readFile(record, 'utf8')).match(/^started /gm) ?? []).length;
    const before = await starts();
    const running = gateway.call('slow-write', { ms: 30_000 });
    await vi.waitFor(async () => expect(await starts()).toBe(before + 1), { timeout: 15_000 });
    process.kill(serverOf(gateway, 'recorder').pid!, 'SIGKILL');
    const receipt = receiptOf(await running);
    expect(receipt).toMatchObject({ ok: false, code: 'CONNECTION_FAILED', tool: 'slow-write' });
    expect(receipt.error).toMatch(/MCP server 'recorder' was killed by SIGKILL during the call of 'wait': the call may or may not have run/);
    expect(await starts()).toBe(before + 1);
  });

  it('passes a secret from the gateway’s environment to the server, and redacts it from the receipt', async () => {
    const receipt = receiptOf(await gateway.call('secret', { name: 'SERVER_SECRET' }));
    expect(receipt).toMatchObject({ ok: true, output: '[REDACTED]', structured_content: { value: '[REDACTED]' } });
    expect(JSON.stringify(await gateway.store.receipts.get(receipt.id))).not.toContain('mcp-secret-0123456789');
    // the server's environment is its own: nothing else of the gateway's reaches it
    expect(receiptOf(await gateway.call('secret', { name: 'HLDP_TEST_MCP_SECRET' })).output).toBe('');
  });

  it('returns SPAWN_FAILED with the reason for a server that cannot start', async () => {
    const receipt = receiptOf(await gateway.call('broken', {}));
    expect(receipt).toMatchObject({ ok: false, code: 'SPAWN_FAILED' });
    expect(receipt.error).toMatch(/MCP server 'broken' could not be started: .*\/no\/such\/mcp-server/);
  });
});

describe('the mcp executor and a server whose structuredContent nests thousands of levels deep', () => {
  const secret = 'deep-secret-0123456789';
  let gateway: Gateway;
  beforeAll(async () => {
    ({ gateway } = await gatewayWith(
      { deep: nodeServer(DEEP, [], { env: { SERVER_SECRET: '${HLDP_TEST_MCP_SECRET}' } }) },
      { deep: mcpToolYaml('deep', 'deep', 'deep', '{ depth: { type: integer, required: true }, where: { type: string } }') },
      { HLDP_TEST_MCP_SECRET: secret },
    ));
  });

  it('stores a complete receipt of a call answered 20,000 levels deep: the nesting left out, and said so', async () => {
    const receipt = receiptOf(await gateway.call('deep', { depth: 20_000 }));
    expect(receipt).toMatchObject({ ok: true, code: null, output: 'depth 20000' });
    expect(receipt.structured_content).toBeUndefined();
    expect(receipt.stderr).toContain('structuredContent nested more than 64 levels deep; it was left out of this receipt');
    expect(receipt.error).toBeNull();
    expect(await gateway.store.receipts.get(receipt.id)).toEqual(receipt);
  });

  it('keeps a structuredContent 64 levels deep whole, its secret redacted', async () => {
    const receipt = receiptOf(await gateway.call('deep', { depth: 64 }));
    expect(receipt).toMatchObject({ ok: true, stderr: '', error: null });
    expect(JSON.stringify(receipt.structured_content)).toBe(`${'{"a":'.repeat(64)}"[REDACTED]"${'}'.repeat(64)}`);
    expect(await gateway.store.receipts.get(receipt.id)).toEqual(receipt);
  });

  // Review K, K14: a content block that is not text was serialised whole, and 200,000 levels in its _meta made the
  // receipt INTERNAL_ERROR "Maximum call stack size exceeded", the server's text lost. Such blocks are now listed as
  // attachments, their _meta not kept (review userZ11, U11-8).
  describe('when a content block that is not text nests 200,000 levels deep', () => {
    it.each([
      ['an image block’s _meta', 'meta', 'depth 200000\nafter', { index: 1, type: 'image', mime_type: 'image/png', bytes: 1, data: 'AA==' }],
      ['an embedded resource’s _meta', 'resource', 'depth 200000', { index: 1, type: 'resource', uri: 'file:///deep.txt', mime_type: null, bytes: 1, text: 'r' }],
    ])('keeps the answer, %s left out', async (_name, where, output, attachment) => {
      const receipt = receiptOf(await gateway.call('deep', { depth: 200_000, where }));
      expect(receipt).toMatchObject({ ok: true, code: null, error: null, output });
      expect(receipt.attachments).toEqual([attachment]);
      expect(await gateway.store.receipts.get(receipt.id)).toEqual(receipt);
    });
  });
});

describe('an idle MCP server', () => {
  it('is stopped after idle_ms, and started again by the next call', async () => {
    const { gateway } = await gatewayWith({ everything: nodeServer(EVERYTHING, [], { idle_ms: 300 }) }, { echo: mcpToolYaml('echo', 'everything', 'echo', '{ message: { type: string, required: true } }') });
    receiptOf(await gateway.call('echo', { message: 'one' }));
    await vi.waitFor(() => expect(serverOf(gateway, 'everything').state).toBe('stopped'), { timeout: 10_000 });
    const receipt = receiptOf(await gateway.call('echo', { message: 'two' }));
    expect(receipt).toMatchObject({ ok: true, output: 'Echo: two', stderr: '' });
    expect(serverOf(gateway, 'everything').restarts).toBe(0);
  });
});

describeWithBubblewrap('a stdio MCP server in the sandbox', () => {
  let gateway: Gateway;
  let shared: string;
  let undeclared: string;
  beforeAll(async () => {
    const temp = await makeTempDir('hldp-mcp-sandbox-');
    cleanups.push(temp.cleanup);
    shared = join(temp.path, 'shared');
    undeclared = join(temp.path, 'undeclared');
    await mkdir(shared);
    await mkdir(undeclared);
    await writeFile(join(shared, 'note.txt'), 'declared\n');
    await writeFile(join(undeclared, 'note.txt'), 'not declared\n');
    const server = nodeServer(RECORDER, [], { env: { RECORD_FILE: join(shared, 'record.log') } }, [shared]);
    ({ gateway } = await gatewayWith(
      { recorder: server },
      {
        read: mcpToolYaml('read', 'recorder', 'read_path', '{ path: { type: string, required: true } }'),
        fetch: mcpToolYaml('fetch', 'recorder', 'fetch', '{ url: { type: string, required: true } }'),
      },
    ));
  });

  it('sees the paths its config declares, and nothing else of the host', async () => {
    expect(receiptOf(await gateway.call('read', { path: join(shared, 'note.txt') }))).toMatchObject({ ok: true, output: 'declared\n' });
    expect(receiptOf(await gateway.call('read', { path: join(undeclared, 'note.txt') }))).toMatchObject({ ok: false, code: 'MCP_ERROR', error: 'ENOENT' });
  });

  it('cannot read the gateway’s receipts', async () => {
    receiptOf(await gateway.call('read', { path: join(shared, 'note.txt') }));
    const receipt = receiptOf(await gateway.call('read', { path: gateway.config.receiptsDb }));
    expect(receipt.ok).toBe(false);
    expect(receipt.output).toBe('');
  });

  it('has no network unless its config gives it one: the host’s 127.0.0.1 is out of reach', async () => {
    const listener = createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => listener.close(() => resolve())));
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/`;
    expect(await (await fetch(url)).text()).toBe('reached');
    expect(receiptOf(await gateway.call('fetch', { url }))).toMatchObject({ ok: false, error: 'ECONNREFUSED' });
  });
});

/** A local server implementing Streamable HTTP that answers every tools/call with one JSON message whose text has `bytes` bytes. */
async function jsonAnswerServer(bytes: number | Record<string, unknown>): Promise<McpHttpStub> {
  const server = await startMcpHttpStub('json', (response, id) => {
    const result = typeof bytes === 'number' ? { content: [{ type: 'text', text: 'b'.repeat(bytes) }] } : bytes;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  });
  cleanups.push(server.close);
  return server;
}

// Review O, O14: a JSON answer was read up to the server's bound of 64 MiB whatever the tool's cap, parsed whole, and
// only then cut: one 60 MiB answer to a tool capped at 64 KiB raised the gateway's peak RSS from 107 to 394 MB and took
// 20.8 s. Its long strings are now cut as they arrive (each to the cap, head and tail), and the bound tied to the cap
// (12 × cap + 1 MiB, here 1,835,008 bytes) holds what is left: an answer past it on the wire is a receipt, its output cut.
describe('the mcp executor over Streamable HTTP, against a local server implementing the transport that answers in JSON', () => {
  const capped = { 'capped-json': mcpToolYaml('capped-json', 'json', 'big', '{}', '{ max_output_bytes: 65536 }') };

  it('answers a call whose answer passes the bound its tool\'s cap sets (16 MiB for 64 KiB) with a receipt whose output is cut, as a shell tool\'s is', async () => {
    // an answer past the bound was a failed call, MCP_ERROR, with nothing of its output: its long strings are now cut
    // as they arrive, and the answer read to its end
    const bytes = 16 * 1024 * 1024;
    const server = await jsonAnswerServer({ content: [{ type: 'text', text: `head${'b'.repeat(bytes - 8)}tail` }], structuredContent: { lines: 1 } });
    const { gateway } = await gatewayWith({ json: { url: server.url } }, capped);
    const receipt = receiptOf(await gateway.call('capped-json', {}));
    expect(receipt).toMatchObject({ ok: true, code: null, error: null, timed_out: false, output_bytes: bytes, structured_content: { lines: 1 } });
    const marker = /\n\[… (\d+) bytes cut of (\d+) …\]\n/.exec(receipt.output)!;
    expect(Number(marker[2])).toBe(bytes);
    expect(receipt.cut_bytes).toBe(Number(marker[1]));
    expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(65_536);
    expect(receipt.output.startsWith('headbbb')).toBe(true);
    expect(receipt.output.endsWith('bbbtail')).toBe(true);
    expect(receipt.output.length - marker[0].length + receipt.cut_bytes).toBe(bytes);
  }, 60_000);

  it('cuts a huge answer of escapes the same way, in an event stream too, counting the text\'s bytes, not the wire\'s', async () => {
    const text = '\u0000'.repeat(4 * 1024 * 1024);
    const server = await startMcpHttpStub('json', (response, id) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } })}\n\n`);
    });
    cleanups.push(server.close);
    const { gateway } = await gatewayWith({ json: { url: server.url } }, capped);
    const receipt = receiptOf(await gateway.call('capped-json', {}));
    expect(receipt).toMatchObject({ ok: true, code: null, output_bytes: text.length });
    expect(receipt.cut_bytes).toBeGreaterThan(text.length - 65_536);
    expect(receipt.output).toMatch(/^\u0000+\n\[… \d+ bytes cut of 4194304 …\]\n\u0000+$/);
  }, 60_000);

  it('reads a legitimate answer at the cap whole: its text all escapes on the wire, and repeated in structuredContent', async () => {
    // the most a legitimate answer under the cap takes: 65,536 bytes of text each 6 bytes as JSON (\u0001), twice
    const text = '\u0001'.repeat(65_536);
    const server = await jsonAnswerServer({ content: [{ type: 'text', text }], structuredContent: { text, lines: 1 } });
    const { gateway } = await gatewayWith({ json: { url: server.url } }, capped);
    const receipt = receiptOf(await gateway.call('capped-json', {}));
    expect(receipt).toMatchObject({ ok: true, output_bytes: 65_536, cut_bytes: 0, structured_content: { text, lines: 1 } });
    expect(receipt.output === text).toBe(true);
  }, 60_000);

  it('still reads an answer past the cap and within the bound, and cuts it to the cap', async () => {
    const server = await jsonAnswerServer(1024 * 1024);
    const { gateway } = await gatewayWith({ json: { url: server.url } }, capped);
    const receipt = receiptOf(await gateway.call('capped-json', {}));
    expect(receipt).toMatchObject({ ok: true, output_bytes: 1024 * 1024 });
    expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(65_536);
    expect(receipt.output).toMatch(/\[… \d+ bytes cut of 1048576 …\]/);
  }, 60_000);
});
