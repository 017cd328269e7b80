import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settled } from '../helpers/beside-healthz.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { track } from '../helpers/run-cli.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, serveWithMcpConfig, writeMcpConfig } from './support.js';

// Review Z18: the count of unasked messages an HTTP MCP server is held to (review Z16-4) was evaded by a server
// answering initialize's id 0 with "0" (the SDK took it, but request 0 stayed waiting and the count was off for good),
// or flooding answers to no request or data that is not JSON (never counted) — Z18-1; and it stopped an ordinary SDK
// server after every call, whose batch logged on the standalone GET stream during the call was still read after the
// call's answer — Z18-4. Real hldp serve, the servers real processes on 127.0.0.1.
const FLOOD = fileURLToPath(new URL('./fixtures/flood-http-server.mjs', import.meta.url));
const SDK_LOG = fileURLToPath(new URL('./fixtures/sdk-log-http-server.mjs', import.meta.url));
const EVADE = ['stringid', 'stray', 'junk', 'pulse'] as const;
// review Z19, Z19-4: bursts of 20,000 log lines every 2.1 s, a quiet second between them
const PULSE = { PULSE: '2100', BURST: '20000' };
const stops: Array<() => unknown> = [];
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let gateway: ServiceProcess;

async function server(file: string, env: Record<string, string>): Promise<string> {
  const child = track(spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] }));
  stops.push(() => child.kill('SIGKILL'));
  return new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening on (\S+)\n/.exec(out);
      if (match) resolve(match[1]!);
    });
  });
}

beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-flood-evade-');
  const urls: Record<string, { url: string }> = { logs: { url: await server(SDK_LOG, { ITEMS: '20000' }) } };
  for (const kind of EVADE) urls[kind] = { url: await server(FLOOD, kind === 'pulse' ? { FLOOD: 'get', ...PULSE } : { FLOOD: 'get', EVADE: kind }) };
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    ...Object.fromEntries(EVADE.map((kind) => [`tools/${kind}/TOOL.hdlp`, mcpToolYaml(kind, kind, 'quiet', '{}', '{ timeout_ms: 60000 }')])),
    'tools/batch/TOOL.hdlp': mcpToolYaml('batch', 'logs', 'batch', '{}', '{ timeout_ms: 60000 }'),
  });
  gateway = await serveWithMcpConfig(temp.path, repo, await writeMcpConfig(temp.path, urls));
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  for (const stop of stops) stop();
  await temp?.cleanup();
});

const call = async (tool: string): Promise<Record<string, unknown>> =>
  (await (await fetch(`${gateway.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params: {} }) })).json()) as Record<string, unknown>;

const state = async (name: string): Promise<string | undefined> =>
  ((await (await fetch(`${gateway.url}/healthz`)).json()) as { mcp_servers: Array<{ name: string; state: string }> }).mcp_servers.find((entry) => entry.name === name)?.state;

describe('an HTTP MCP server that floods its GET stream between calls in a way the count did not see', () => {
  it.each(EVADE)('EVADE=%s: is stopped as broken all the same', async (kind) => {
    expect(await call(kind)).toMatchObject({ ok: true, output: 'quiet' });
    // on main 'stringid' and 'stray' were still running after 15 s, read and parsed as fast as they sent
    // the call's allowance of 20,000, then a second's worth: at load 15 on 2 cores the gateway read ~2,800 a second, ~8 s
    const deadline = Date.now() + 30_000;
    let seen = await state(kind);
    while (seen !== 'stopped' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      seen = await state(kind);
    }
    expect(seen).toBe('stopped');
  }, 60_000);
});

describe('an ordinary SDK-built HTTP MCP server whose call logs a batch on its GET stream', () => {
  it('is not stopped: the logs still read after the call is answered are its tail, not a flood', async () => {
    // the servers above flood on until they are stopped: only this server's stop counts
    const broke = (): number => gateway.stderr().split('\n').filter((line) => line.includes('broke the protocol') && line.includes('"server":"logs"')).length;
    const before = broke();
    // before fixz24 every round after the first was told "MCP server 'logs' was stopped by the gateway (…)"; with
    // 20,000 items, the third (review Z19, Z19-6): what the gateway had not read of the batches by an answer is read
    // after it, past a rule of 3 s past the count, and past one call's allowance when calls come back to back (fixf26)
    for (let round = 0; round < 3; round += 1) {
      const receipt = await call('batch');
      expect(receipt).toMatchObject({ ok: true, output: 'batch done' });
      expect(String(receipt.stderr ?? '')).not.toContain('was stopped by the gateway');
    }
    // the gateway reads the batches' tail to its end, however long that takes it
    await settled(gateway.url, gateway.child.pid!);
    expect(await state('logs')).toBe('running');
    expect(broke()).toBe(before);
  }, 120_000);
});
