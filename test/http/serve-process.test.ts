import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const GATEKEEPER_TOKEN = 'gatekeeper-token-0123456789abcdef';
const home = useServiceHome('warn');

describe('hldp serve with a standalone hldp gatekeeper', () => {
  it('runs shell-exec on the real gatekeeper process and stores the receipt', async () => {
    const gatekeeper = await home.start(['gatekeeper', '--port', '0', '--root', home.path], { HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
    const gateway = await home.serve([], { HLDP_GATEKEEPER_DEFAULT_URL: gatekeeper.url, HLDP_GATEKEEPER_DEFAULT_TOKEN: GATEKEEPER_TOKEN, HLDP_LOG_LEVEL: 'info' });
    const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo hello; pwd' } } });
    expect(response.json).toMatchObject({ ok: true, output: `hello\n${await realpath(home.path)}\n`, executor: 'gatekeeper' });
    // the gatekeeper's token never reaches a receipt or the gateway's log
    expect(JSON.stringify(response.json)).not.toContain(GATEKEEPER_TOKEN);
    expect(gateway.stderr()).not.toContain(GATEKEEPER_TOKEN);
    // the log is JSON lines; the call's line carries the receipt's id, and no params
    await waitFor(async () => gateway.stderr().includes(response.json.id));
    const lines = gateway.stderr().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.call_id === response.json.id)).toMatchObject({ tool: 'shell-exec', executor: 'gatekeeper', ok: true });
    expect(gateway.stderr()).not.toContain('echo hello');
  });
});

describe('hldp serve shutting down', () => {
  it('lets a call in flight finish, answers it, stores its receipt, and exits 0', async () => {
    const gateway = await home.serve();
    const slow = request(gateway, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'sleep 1; echo finished' } } });
    await waitFor(async () => (await request(gateway, 'GET', '/healthz')).json.calls_in_flight === 1);
    const exit = gateway.stop();
    expect((await slow).json).toMatchObject({ ok: true, output: 'finished\n' });
    expect(await exit).toBe(0);
    const stored = await runCli(['receipts', '--json'], { env: home.env });
    expect(JSON.parse(stored.stdout).receipts[0]).toMatchObject({ tool: 'shell-exec', output: 'finished\n' });
  });
});

describe('hldp serve refusing to start', () => {
  it.each([
    [['serve', '--host', '0.0.0.0', '--port', '0'], {}, /listen.host: '0.0.0.0' is reachable beyond this machine, so credentials are required: set api_token/],
    [['serve', '--port', '0'], { HLDP_API_TOKEN: 'short' }, /HLDP_API_TOKEN: must be at least 16 characters/],
    [['serve', '--port', '0'], { HLDP_WEBHOOK_SECRET: 'short' }, /HLDP_WEBHOOK_SECRET: must be at least 8 characters/],
    [['serve', '--port', '0', '--config', 'CONFIG'], {}, /config.yaml:2:9: 'listen.port' must be integer/],
  ])('%j exits 2 naming the key and the reason', async (args, extraEnv, message) => {
    const config = join(home.path, 'config.yaml');
    await writeFile(config, 'listen:\n  port: "eighty"\n');
    const run = await runCli(args.map((arg) => (arg === 'CONFIG' ? config : arg)), { env: { ...home.env, ...extraEnv } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('hldp serve on a port in use', () => {
  it('exits 2 naming listen.port', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const run = await runCli(['serve', '--port', String(port)], { env: home.env }).finally(() => new Promise((resolve) => blocker.close(resolve)));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`listen.port: 127.0.0.1:${port} is in use`));
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition never held');
}

async function realpath(path: string): Promise<string> {
  return (await import('node:fs/promises')).realpath(path);
}
