import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, serveWithMcpConfig, writeMcpConfig } from './support.js';

// Review S, S9: a stdio server's answer was read whole up to 64 MiB whatever the call's bound (12 × max_output_bytes
// + 1 MiB, held for HTTP servers only): 60 MiB to a tool capped at 64 KiB took the gateway's peak RSS up 300 MB and
// came back ok, cut. Now, as over HTTP, the long strings of a line that one call alone waits on are cut as they come,
// and a line still past the bound of the calls waiting is skipped as it streams: those calls fail MCP_ERROR naming the
// bound, and the server is kept, its next answer read as before.
const BIG = fileURLToPath(new URL('./fixtures/big-answer-server.mjs', import.meta.url));
const SMALL_BOUND = 12 * 65536 + 1024 * 1024; // tool `big`, max_output_bytes 65536
const ROOMY_BOUND = 12 * 1024 * 1024 + 1024 * 1024; // tool `roomy`, max_output_bytes 1 MiB

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let gateway: ServiceProcess;
beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-stdio-bound-');
  const repo = await initRepository(join(temp.path, 'repo'));
  const params = '{ type: object, properties: { size: { type: integer }, together: { type: integer }, notify: { type: integer }, blocks: { type: integer } } }';
  await commitFiles(repo, {
    'tools/big/TOOL.hdlp': mcpToolYaml('big', 'big', 'big', params, '{ timeout_ms: 120000, max_output_bytes: 65536 }'),
    'tools/roomy/TOOL.hdlp': mcpToolYaml('roomy', 'big', 'big', params, '{ timeout_ms: 120000, max_output_bytes: 1048576 }'),
  });
  // the fixture needs Node and its own folder alone
  const config = await writeMcpConfig(temp.path, { big: { command: process.execPath, args: [BIG], sandbox: { filesystem: { read: [dirname(BIG), dirname(process.execPath)] } } } });
  gateway = await serveWithMcpConfig(temp.path, repo, config);
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await temp?.cleanup();
});

interface Receipt { ok: boolean; code: string | null; output: string; error: string | null; output_bytes: number; cut_bytes: number }

async function call(tool: string, params: Record<string, number>): Promise<Receipt> {
  const response = await fetch(`${gateway.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params }) });
  return (await response.json()) as Receipt;
}

/** The gateway's peak resident memory so far, in bytes (Linux: VmHWM of /proc/PID/status). */
async function peakBytes(): Promise<number> {
  const status = await readFile(`/proc/${gateway.child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function serverState(): Promise<{ pid?: number; restarts: number }> {
  const health = (await (await fetch(`${gateway.url}/healthz`)).json()) as { mcp_servers: Array<{ name: string; pid?: number; restarts: number }> };
  return health.mcp_servers.find((server) => server.name === 'big')!;
}

const serverPid = (receipt: Receipt): string => /^pid (\d+) /.exec(receipt.output)?.[1] ?? `no pid in ${JSON.stringify(receipt).slice(0, 300)}`;

describe('a stdio MCP server answering past the call\'s bound', () => {
  it('reads a 60 MiB answer as it comes, its text cut to the cap, holding none of it, and the same server process answers on', async () => {
    const first = await call('big', { size: 10 });
    expect(first).toMatchObject({ ok: true });
    const before = await peakBytes();
    const state = await serverState();

    const size = 60 * 1024 * 1024;
    const receipt = await call('big', { size });
    expect(receipt).toMatchObject({ ok: true, code: null, output_bytes: `pid ${serverPid(first)} `.length + size });
    expect(receipt.cut_bytes).toBeGreaterThan(size - 65536);
    expect(receipt.output).toMatch(/^pid \d+ a+\n\[… \d+ bytes cut of \d+ …\]\na+$/);
    // the bytes were cut as they streamed by: the gateway's peak grew by less than the answer's size (it was +300 MB;
    // ~35 MB now, the garbage of decoding the chunks before the collector runs)
    expect((await peakBytes()) - before).toBeLessThan(48 * 1024 * 1024);

    const next = await call('big', { size: 10 });
    expect(next).toMatchObject({ ok: true });
    expect(serverPid(next)).toBe(serverPid(first));
    expect(await serverState()).toEqual(state);
  }, 180_000);

  it('fails the call MCP_ERROR naming the bound when what is left past the cuts passes it, and keeps the server', async () => {
    const state = await serverState();
    // 60,000 short strings: ~3.8 MB that no cut shortens, past 12 × 64 KiB + 1 MiB
    const receipt = await call('big', { size: 10, blocks: 60_000 });
    expect(receipt, JSON.stringify(receipt).slice(0, 600)).toMatchObject({ ok: false, code: 'MCP_ERROR', error: expect.stringContaining(`larger than ${SMALL_BOUND} bytes, the most a call of its tool may receive`) });
    expect(await call('big', { size: 10 })).toMatchObject({ ok: true });
    expect(await serverState()).toEqual(state);
  }, 180_000);

  it('fails only the call whose own bound its answer passed, when a call with a larger bound waits beside it', async () => {
    // both wait, then the server answers 4 MiB to `big` first: under roomy's bound, so held, and refused by its id alone
    const [small, large] = await Promise.all([call('big', { size: 4 * 1024 * 1024, together: 2 }), call('roomy', { size: 100, together: 2 })]);
    expect(small).toMatchObject({ ok: false, code: 'MCP_ERROR', error: expect.stringMatching(new RegExp(`larger than ${SMALL_BOUND} bytes, the most a call of its tool may receive \\(it was 41943\\d\\d bytes\\)`)) });
    expect(large).toMatchObject({ ok: true, output: expect.stringMatching(/^pid \d+ a{100}$/) });
  }, 180_000);

  it('fails every call waiting whose bound a skipped line passed, since whose answer it was cannot be read', async () => {
    const [small, large] = await Promise.all([call('big', { size: 20 * 1024 * 1024, together: 2 }), call('roomy', { size: 100, together: 2 })]);
    expect(small).toMatchObject({ ok: false, code: 'MCP_ERROR', error: expect.stringContaining(`larger than ${SMALL_BOUND} bytes`) });
    expect(large).toMatchObject({ ok: false, code: 'MCP_ERROR', error: expect.stringContaining(`larger than ${ROOMY_BOUND} bytes`) });
    // the server is kept, and answers on
    expect(await call('big', { size: 10 })).toMatchObject({ ok: true });
  }, 180_000);

  it('drops a notification past the bound when no call waits, with a log line, and reads on', async () => {
    expect(await call('big', { size: 10, notify: 2 * 1024 * 1024 })).toMatchObject({ ok: true });
    const next = await call('big', { size: 10 });
    expect(next, JSON.stringify(next)).toMatchObject({ ok: true });
    // a log line goes out through the logger's asynchronous writes: it may reach the pipe after an answer does
    await vi.waitFor(() => expect(gateway.stderr()).toMatch(/"server":"big","bytes":2097\d{3},"bound":1048576,"calls_failed":0.*passed the bound of the calls waiting on it and was skipped/), { timeout: 10_000, interval: 20 });
  }, 180_000);
});
