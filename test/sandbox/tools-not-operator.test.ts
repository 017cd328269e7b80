import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review O, addendum: a gateway on loopback with no credential configured (the quick start) serves every request as
// `local`, the operator at this machine with every role; a tool declaring network access shares the host's loopback,
// and reached the API as `local` too (it read the admin-only receipts walk, and could approve its own requests). A root
// gateway's tools run as sandbox.run_as, and a connection a process of that uid made is now no one (401).
const root = process.getuid?.() === 0;
// needs a root gateway
const describeAsRoot = (name: string, suite: () => void): void => describeNeeding([ROOT], name, suite);

type Receipt = { ok: boolean; output: string; error?: string };
const run = promisify(execFile);

let temp: { path: string; cleanup: () => Promise<void> };
const services: ServiceProcess[] = [];

describeAsRoot("a root gateway without credentials does not serve its own tools as the operator", () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await mkdir(join(temp.path, 'workspace'));
    await writeFiles(join(temp.path, 'repo'), {
      'tools/fetch/TOOL.hdlp': makeToolYaml('fetch', {
        executor: 'shell', method: 'run', params_schema: '{ url: { type: string, required: true, pattern: "^http://127" } }',
        shell: '{ argv: [curl, -s, "{url}"] }', sandbox: '{ network: true }',
      }),
    });
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await temp?.cleanup();
  });

  for (const mode of ['required', 'off'] as const) {
    it(`refuses the API to a tool with network access, and serves the operator (sandbox ${mode})`, async () => {
      const config = join(temp.path, `config-${mode}.yaml`);
      await writeFile(config, `sandbox: { mode: ${mode} }\n`);
      const gateway = await spawnService(
        ['serve', '--port', '0', '--repo', join(temp.path, 'repo'), '--config', config],
        { HLDP_CACHE_DIR: join(temp.path, `cache-${mode}`), HLDP_DATA_DIR: join(temp.path, `data-${mode}`), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_LOG_LEVEL: 'warn' },
        / at (http:\/\/[\d.:]+)\n/,
      );
      services.push(gateway);
      // the operator, at this machine, as root: `local`, admin
      expect((await request(gateway, 'GET', '/v1/receipts/verify')).status).toBe(200);
      const receipt = (await request(gateway, 'POST', '/v1/call', { body: { tool: 'fetch', params: { url: `${gateway.url}/v1/receipts/verify` } } })).json as Receipt;
      expect(receipt.ok, JSON.stringify(receipt)).toBe(true);
      // failed before: the tool's output was the walk, {"ok":true,"checked":…}
      expect(receipt.output).not.toMatch(/"checked"/);
      expect(JSON.parse(receipt.output)).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringMatching(/uid 65534, whom this root gateway runs its tools as/) });
    });
  }
});

// Review P, P13: with no credential configured, any other account of the machine was `local` too — its curl to
// 127.0.0.1 ran shell-exec in the gateway user's workspace as that user, and the console's sign-in made it the operator
describeAsRoot('a gateway without credentials does not serve another user of the machine as the operator', () => {
  let gateway: ServiceProcess;
  let other: { path: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    other = await makeTempDir();
    await writeFiles(join(other.path, 'repo'), { 'tools/echo/TOOL.hdlp': makeToolYaml('echo', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hi] }' }) });
    await mkdir(join(other.path, 'workspace'));
    gateway = await spawnService(
      ['serve', '--port', '0', '--repo', join(other.path, 'repo')],
      { HLDP_CACHE_DIR: join(other.path, 'cache'), HLDP_DATA_DIR: join(other.path, 'data'), HLDP_WORKSPACE: join(other.path, 'workspace'), HLDP_LOG_LEVEL: 'warn' },
      / at (http:\/\/[\d.:]+)\n/,
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await other?.cleanup();
  });

  // curl as uid 12345, an account that is neither the gateway's (root) nor the one its tools run as
  const asOtherUser = (...args: string[]) =>
    run('setpriv', ['--reuid=12345', '--regid=12345', '--clear-groups', 'curl', '-s', '-w', '\n%{http_code}', ...args]).then(({ stdout }) => {
      const at = stdout.lastIndexOf('\n');
      return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
    });

  it('refuses its calls with 401 saying why, and serves the operator (root) as before', async () => {
    const call = await asOtherUser('-X', 'POST', '-H', 'content-type: application/json', '--data', JSON.stringify({ tool: 'echo', params: {} }), `${gateway.url}/v1/call`);
    expect(call.status).toBe(401);
    expect(JSON.parse(call.body)).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringMatching(/uid 12345, another user of this machine: .*configure api_token or principals/) });
    const receipts = await asOtherUser(`${gateway.url}/v1/receipts/verify`);
    expect(receipts.status).toBe(401);
    expect((await request(gateway, 'POST', '/v1/call', { body: { tool: 'echo', params: {} } })).json).toMatchObject({ ok: true, output: 'hi\n', caller: 'local' });
  });

  // Review Q, Q1: the other end was looked up by its two port numbers alone, and the gateway's own accepted socket
  // ends with those same two when the client binds another loopback address to the server's port number: served as
  // the gateway's user (root), `local`, in 7 of 8 tries
  it("refuses a client bound to the server's own port number on another loopback address", async () => {
    const port = new URL(gateway.url).port;
    for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) {
      const call = await asOtherUser('--interface', address, '--local-port', port, '-X', 'POST', '-H', 'content-type: application/json', '--data', JSON.stringify({ tool: 'echo', params: {} }), `${gateway.url}/v1/call`);
      expect(call.status, `${address}: ${call.body}`).toBe(401);
      expect(JSON.parse(call.body)).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringMatching(/uid 12345, another user of this machine/) });
    }
  });

  // Review Q, Q1: a client that sent its call and closed its socket at once left no live socket: a reset one leaves
  // the kernel's tables (no row: the call was served as `local`), a closed one waits out FIN_WAIT2 listed as root's
  it('does not run a call whose sender closed or reset its socket at once', async () => {
    const { port } = new URL(gateway.url);
    const sender = [
      "const [how, delay] = process.argv.slice(1);",
      "const body = JSON.stringify({ tool: 'echo', params: {} });",
      `const socket = require('net').connect(${port}, '127.0.0.1', () => {`,
      `  socket.write('POST /v1/call HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + body.length + '\\r\\n\\r\\n' + body);`,
      "  setTimeout(() => (how === 'reset' ? socket.resetAndDestroy() : socket.end(() => process.exit(0))), Number(delay));",
      '});',
    ].join('\n');
    const receipts = async () => ((await request(gateway, 'GET', '/v1/receipts?tool=echo&limit=1000')).json as { receipts: unknown[] }).receipts.length;
    const before = await receipts();
    for (const how of ['reset', 'close']) {
      for (const delay of ['0', '5', '20']) {
        await run('setpriv', ['--reuid=12345', '--regid=12345', '--clear-groups', process.execPath, '-e', sender, how, delay]);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await receipts()).toBe(before);
  });

  it('does not sign its browser in to the console as the operator', async () => {
    const signIn = await asOtherUser('-X', 'POST', '-H', `origin: ${gateway.url}`, '--data', 'token=&next=/console', `${gateway.url}/console/sign-in`);
    expect(signIn.status).toBe(401);
    expect(signIn.body).toContain('another user of this machine');
  });
});
