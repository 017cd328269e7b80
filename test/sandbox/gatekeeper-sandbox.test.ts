import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// The standalone `hldp gatekeeper` sandboxes its exec as the gateway does, and applies the sandbox the calling
// tool declared (the gateway sends it with the request).
const GATEKEEPER_TOKEN = 'gatekeeper-token-no-command-may-read';

let temp: { path: string; cleanup: () => Promise<void> };
let gatekeeper: ServiceProcess;
let gateway: ServiceProcess;
let listener: Server;
let port: number;

describeWithBubblewrap('the standalone hldp gatekeeper', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    listener = createServer((socket) => socket.end('reached\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
    const schema = '{ cmd: { type: string, required: true } }';
    await writeFiles(join(temp.path, 'repo'), {
      'tools/closed/TOOL.hdlp': makeToolYaml('closed', { params_schema: schema }),
      'tools/open/TOOL.hdlp': makeToolYaml('open', { params_schema: schema, sandbox: '{ network: true, limits: { processes: 64 } }' }),
    });
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn' };
    gatekeeper = await spawnService(['gatekeeper', '--port', '0', '--root', temp.path], { ...env, HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
    gateway = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
      { ...env, HLDP_WORKSPACE: temp.path, HLDP_GATEKEEPER_DEFAULT_URL: gatekeeper.url, HLDP_GATEKEEPER_DEFAULT_TOKEN: GATEKEEPER_TOKEN },
      / at (http:\/\/[\d.:]+)\n/,
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await gatekeeper?.stop();
    await new Promise((resolve) => listener?.close(resolve));
    await temp?.cleanup();
  });

  const call = async (tool: string, cmd: string) => (await request(gateway, 'POST', '/v1/call', { body: { tool, params: { cmd } } })).json as Record<string, unknown>;
  const connect = () => `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => { process.stdout.write(d); process.exit(0); }).on('error', (e) => { console.error(e.message); process.exit(7); })"`;

  it('says at start that its sandbox is on, and reports it in /healthz', async () => {
    expect(gatekeeper.stderr()).toMatch(/sandbox on\n/);
    expect((await request(gatekeeper, 'GET', '/healthz', { headers: { authorization: `Bearer ${GATEKEEPER_TOKEN}` } })).json).toMatchObject({ status: 'ok', sandbox: { mode: 'auto', state: 'on', containment: 'pid-namespace' } });
  });

  it('runs exec where the gatekeeper’s environment, with its token, is out of sight', async () => {
    const receipt = await call('closed', 'cat /proc/$PPID/environ; cat /proc/1/environ; ls /proc | grep -c "^[0-9]"');
    expect(`${receipt.output as string}${receipt.stderr as string}`).not.toContain('HLDP_GATEKEEPER_TOKEN');
    expect(`${receipt.output as string}${receipt.stderr as string}`).not.toContain('[REDACTED]');
  });

  it('keeps the network closed unless the tool declares it, through the gateway’s request', async () => {
    expect(await call('closed', connect())).toMatchObject({ ok: false, code: 'NONZERO_EXIT', error: expect.stringMatching(/^connect ECONNREFUSED/) });
    expect(await call('open', connect())).toMatchObject({ ok: true, output: 'reached\n' });
  });

  it('refuses an unknown --sandbox mode at start, naming the modes', async () => {
    const result = await runCli(['gatekeeper', '--port', '0', '--sandbox', 'sometimes'], { env: { HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--sandbox: must be one of auto, required, off, got 'sometimes'");
  });
});
