import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { loopCpuMs, settled } from '../helpers/beside-healthz.js';
import { track } from '../helpers/run-cli.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, serveWithMcpConfig, writeMcpConfig } from './support.js';

// Review K, K15: a Streamable-HTTP MCP server that floods a call's event stream (ping requests, log lines, progress)
// held the gateway's event loop for hundreds of ms at a time, so the call's deadline fired late (3-4 times its
// timeout_ms on a loaded host); its receipt said only that it timed out; and the answers to its pings it took and never
// replied to kept a socket each for 10 s after the receipt. Real hldp serve, the server a real process on 127.0.0.1.
// A server that never answers initialize: a call whose deadline came while it was starting was said to be cancelled
// on it (notifications/cancelled), and SIGTERM waited out its startup_timeout_ms. Review Z16, Z16-4: a server that
// floods notifications on the session's standalone GET stream between calls was read, parsed and validated for the
// idle_ms (5 minutes) after every call, where a stdio server doing the same is stopped within a second.
const FLOOD = fileURLToPath(new URL('./fixtures/flood-http-server.mjs', import.meta.url));
const TIMEOUT_MS = 3000;

async function floodServer(kind: string): Promise<{ url: string; held: () => Promise<number>; streams: () => Promise<number> }> {
  const child = track(spawn(process.execPath, [FLOOD], { env: { ...process.env, FLOOD: kind }, stdio: ['ignore', 'pipe', 'inherit'] }));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening on (\S+)\n/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the flood server exited with ${code}`)));
  });
  stops.push(() => child.kill('SIGKILL'));
  const count = async (what: string): Promise<number> => Number(await (await fetch(new URL(what, url))).text());
  return { url, held: () => count('/held'), streams: () => count('/streams') };
}

const stops: Array<() => unknown> = [];
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let gateway: ServiceProcess;
const servers: Record<string, Awaited<ReturnType<typeof floodServer>>> = {};
const KINDS = ['ping', 'log', 'progress'] as const;

beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-flood-');
  for (const kind of [...KINDS, 'silent', 'get'] as const) servers[kind] = await floodServer(kind);
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    ...Object.fromEntries(KINDS.map((kind) => [`tools/${kind}/TOOL.hdlp`, mcpToolYaml(kind, kind, 'flood', '{}', `{ timeout_ms: ${TIMEOUT_MS} }`)])),
    ...Object.fromEntries(KINDS.map((kind) => [`tools/quiet-${kind}/TOOL.hdlp`, mcpToolYaml(`quiet-${kind}`, kind, 'quiet', '{}', '{ timeout_ms: 60000 }')])),
    'tools/silent/TOOL.hdlp': mcpToolYaml('silent', 'silent', 'flood', '{}', `{ timeout_ms: ${TIMEOUT_MS} }`),
    'tools/get/TOOL.hdlp': mcpToolYaml('get', 'get', 'quiet', '{}', '{ timeout_ms: 60000 }'),
  });
  // the silent server's start would wait 10 minutes for its answer to initialize
  const config = await writeMcpConfig(temp.path, { ...Object.fromEntries(KINDS.map((kind) => [kind, { url: servers[kind]!.url }])), silent: { url: servers.silent!.url, startup_timeout_ms: 600_000 }, get: { url: servers.get!.url } });
  gateway = await serveWithMcpConfig(temp.path, repo, config);
  // Each server is up before its flood is timed, as in a gateway that has served a while: the first call of a fresh
  // gateway also loads the MCP SDK and sends initialize, which at load 20 took the whole 3 s deadline (the call never
  // reached the server, and its receipt had nothing to say of a flood).
  for (const kind of KINDS) expect((await call(`quiet-${kind}`)).receipt).toMatchObject({ ok: true, output: 'quiet' });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  for (const stop of stops) stop();
  await temp?.cleanup();
});

async function call(tool: string): Promise<{ receipt: Record<string, unknown>; wallMs: number }> {
  const started = performance.now();
  const response = await fetch(`${gateway.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params: {} }) });
  return { receipt: (await response.json()) as Record<string, unknown>, wallMs: performance.now() - started };
}

describe('a Streamable-HTTP MCP server that floods the answer stream of a call', () => {
  it.each([
    { kind: 'ping', says: /while the call waited, MCP server 'ping' sent (\d+) requests and \d+ notifications \(ping ×\1/ },
    { kind: 'log', says: /while the call waited, MCP server 'log' sent 0 requests and (\d+) notifications \(notifications\/message ×\1\)/ },
    { kind: 'progress', says: /while the call waited, MCP server 'progress' sent 0 requests and (\d+) notifications \(notifications\/progress ×\1\)/ },
  ])('of $kind messages: the call ends at its deadline, and its receipt says what the server sent meanwhile', async ({ kind, says }) => {
    const { receipt, wallMs } = await call(kind);
    expect(receipt).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true, error: expect.stringContaining(`timed out after ${TIMEOUT_MS} ms`), stderr: expect.stringMatching(says) });
    expect(Number(says.exec(receipt.stderr as string)![1])).toBeGreaterThan(0);
    // not a measure of speed: a bound far above the deadline that a loop held by the flood passed (3-4 times it)
    expect(wallMs).toBeLessThan(3 * TIMEOUT_MS);
  }, 60_000);

  it("lets go of its answers to the server's pings with the call, not 10 s later", async () => {
    const { receipt } = await call('ping');
    expect(receipt).toMatchObject({ code: 'TIMEOUT', stderr: expect.stringMatching(/messages of the gateway to it were not sent, since 64 exchanges with it were waiting unanswered/) });
    // the server held every answer it took; once the call is over, the gateway has closed them all
    const deadline = Date.now() + 5000;
    let held = await servers.ping!.held();
    while (held > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      held = await servers.ping!.held();
    }
    expect(held).toBe(0);
  }, 60_000);
});

describe('a Streamable-HTTP MCP server that floods notifications on its GET stream between calls', () => {
  it('is stopped as broken within seconds, logged and told to the next call; the gateway then spends a small part of what the same flood costs unstopped', async () => {
    const pid = gateway.child.pid!;
    await settled(gateway.url, pid);
    // the baseline, in this run: the same notifications as fast as the gateway reads, on the stream of a call that
    // waits for its deadline (not counted: while a call waits, its server may log as fast as it works)
    const rate = async (work: () => Promise<unknown>): Promise<number> => {
      const [cpu, wall] = [await loopCpuMs(pid), performance.now()];
      await work();
      return (await loopCpuMs(pid) - cpu) / (performance.now() - wall);
    };
    const flooded = await rate(() => call('log'));
    expect((await call('get')).receipt).toMatchObject({ ok: true, output: 'quiet' });
    // the GET stream opened after initialize floods once the call is answered: the server is stopped (on main it
    // flooded for its idle_ms, 5 minutes) and its stream closed
    const deadline = Date.now() + 30_000;
    let state: string | undefined;
    while (Date.now() < deadline) {
      const health = (await (await fetch(`${gateway.url}/healthz`)).json()) as { mcp_servers: Array<{ name: string; state: string }> };
      state = health.mcp_servers.find((server) => server.name === 'get')?.state;
      if (state === 'stopped' && (await servers.get!.streams()) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(state).toBe('stopped');
    expect(await servers.get!.streams()).toBe(0);
    expect(gateway.stderr()).toContain('an MCP server broke the protocol and was stopped');
    // what the gateway's event loop spends once it is stopped, against what the flood took in the same run: on main
    // the GET stream's flood took as much as the call's (0.093 against 0.084 ms a ms at load 24); stopped, a fifth of it
    // at load 31-35, where the flood gets little of the cores, and far less on a quiet host (an idle gateway's timers
    // take 0-20 ms a second at the kernel's 10 ms tick, whatever the load)
    const after = await rate(() => new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS)));
    expect(after, `main-thread CPU per ms after the stop, against ${flooded.toFixed(3)} while a call's stream flooded`).toBeLessThan(flooded / 2);
    // the next call connects anew, and is told why the server's connection ended
    const { receipt } = await call('get');
    expect(receipt).toMatchObject({ ok: true, output: 'quiet' });
    expect(String(receipt.stderr)).toContain("MCP server 'get' was stopped by the gateway (it sent messages that no request asked for faster than 1000 a second, past its allowance) since its last call; it was started again");
  }, 90_000);
});

describe('a Streamable-HTTP MCP server that never answers initialize', () => {
  // last: it stops the gateway
  it('times a call out saying it was never sent, and does not hold the gateway on SIGTERM while it is starting', async () => {
    // the call's deadline fires before any tools/call could go out: it was said to be cancelled on the server
    const { receipt } = await call('silent');
    expect(receipt).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true, error: expect.stringMatching(new RegExp(`^timed out after ${TIMEOUT_MS} ms while MCP server 'silent' was starting; the call was not sent to it[ (]`)) });
    // the start goes on after the call (other calls may share it); the gateway's shutdown waited for its 10 minutes,
    // and stop() kills (SIGKILL) and throws for a gateway still running 20 s after SIGTERM
    expect(await gateway.stop()).toBe(0);
  }, 60_000);
});

