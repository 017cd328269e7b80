import { createServer, type Server } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { processesMatching } from '../executors/support/processes.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';
import { evalShTool } from './support/eval-tool.js';

// The acceptance tests, on a real `hldp serve` process in its default configuration (sandbox: auto) with
// real tools: what a sandboxed tool cannot see, write or reach, and what stops it.

const API_TOKEN = 'api-token-that-no-tool-may-see-0123';
const CONFIG_SECRET = 'webhook-secret-only-in-the-config-file';
const script = (name: string, extra: Record<string, string> = {}) =>
  evalShTool(name, extra);

let temp: { path: string; cleanup: () => Promise<void> };
let workspace: string;
let gateway: ServiceProcess;
let listener: Server;
let listenerPort: number;
let connections = 0;
const auth = { authorization: `Bearer ${API_TOKEN}` };

async function run(tool: string, cmd: string): Promise<Record<string, unknown>> {
  const response = await request(gateway, 'POST', '/v1/call', { body: { tool, params: { cmd } }, headers: auth });
  expect(response.status).toBe(200);
  return response.json as Record<string, unknown>;
}

describeWithBubblewrap('a sandboxed tool on hldp serve', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    // the worst case: the gateway's data, cache and config all inside the workspace its tools may write
    workspace = join(temp.path, 'workspace');
    await mkdir(workspace);
    await writeFiles(join(temp.path, 'repo'), {
      'tools/sh/TOOL.hdlp': script('sh', { constraints: '{ timeout_ms: 20000 }' }),
      'tools/net/TOOL.hdlp': script('net', { sandbox: '{ network: true }' }),
      'tools/run/TOOL.hdlp': makeToolYaml('run', { params_schema: '{ cmd: { type: string, required: true } }', constraints: '{ timeout_ms: 20000 }' }),
      'tools/bomb/TOOL.hdlp': script('bomb', { constraints: '{ timeout_ms: 3000 }', sandbox: '{ limits: { processes: 32 } }' }),
      'tools/hog/TOOL.hdlp': script('hog', { constraints: '{ timeout_ms: 20000 }', sandbox: '{ limits: { memory: 128MiB } }' }),
      'tools/spin/TOOL.hdlp': script('spin', { constraints: '{ timeout_ms: 20000 }', sandbox: '{ limits: { cpu_seconds: 1 } }' }),
      'tools/big/TOOL.hdlp': script('big', { sandbox: '{ limits: { file_size: 64K } }' }),
    });
    const configFile = join(workspace, 'brush-holder.yaml');
    await writeFile(configFile, `webhook_secret: ${CONFIG_SECRET}\n`);
    listener = createServer((socket) => {
      connections += 1;
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    listenerPort = (listener.address() as AddressInfo).port;
    gateway = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo'), '--config', configFile],
      { HLDP_CACHE_DIR: join(workspace, 'cache'), HLDP_DATA_DIR: join(workspace, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: API_TOKEN },
      / at (http:\/\/[\d.:]+)\n/,
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await new Promise((resolve) => listener?.close(resolve));
    await temp?.cleanup();
  });

  it('reports the sandbox on in /healthz', async () => {
    const health = await request(gateway, 'GET', '/healthz', { headers: auth });
    expect(health.json).toMatchObject({ status: 'ok', sandbox: { state: 'on', mode: 'auto', containment: 'pid-namespace' } });
    expect(gateway.stderr()).not.toContain('WARNING: sandbox');
  });

  describe('when it tries to read the gateway’s secrets', () => {
    it('sees no environment of the gateway in /proc, nor any process of the host', async () => {
      const receipt = await run('sh', 'cat /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do cat "$f"; done; echo; ls /proc | grep -c "^[0-9]"');
      const seen = `${receipt.output as string}${receipt.stderr as string}`;
      // redaction would hide an echo as [REDACTED]: the secret must not reach the tool at all
      expect(seen).not.toContain(API_TOKEN);
      expect(seen).not.toContain('[REDACTED]');
      expect(seen).not.toContain('HLDP_API_TOKEN');
      // its own few processes: the namespace's init, the tool, the shell's children
      expect(Number((receipt.output as string).trim().split('\n').at(-1))).toBeLessThan(10);
    });

    it('cannot read the config file, the receipts database or the cache', async () => {
      const receipt = await run('sh', `cat ${workspace}/brush-holder.yaml; cat ${workspace}/data/receipts.db | head -c 100; ls -A ${workspace}/data ${workspace}/cache`);
      const seen = `${receipt.output as string}${receipt.stderr as string}`;
      expect(seen).not.toContain(CONFIG_SECRET);
      expect(seen).not.toContain('SQLite format');
      expect(receipt.output).toBe(`${workspace}/cache:\n\n${workspace}/data:\n`);
      // the gateway itself still reads and writes them
      expect((await readFile(join(workspace, 'brush-holder.yaml'), 'utf8'))).toContain(CONFIG_SECRET);
    });

    it('sees the same through the embedded gatekeeper’s exec', async () => {
      const receipt = await run('run', `cat /proc/$PPID/environ ${workspace}/brush-holder.yaml; ls -A ${workspace}/data`);
      const seen = `${receipt.output as string}${receipt.stderr as string}`;
      expect(seen).not.toContain(API_TOKEN);
      expect(seen).not.toContain(CONFIG_SECRET);
      expect(seen).not.toContain('receipts.db');
    });
  });

  describe('when it writes', () => {
    it('writes its workspace, and nothing outside it: not the system, not the home folder, not the host’s /tmp', async () => {
      const marker = `hldp-sandbox-${process.pid}-${Date.now()}`;
      const receipt = await run('sh', `echo kept > ${workspace}/written.txt && echo inside; touch /etc/${marker} /usr/${marker} $HOME/${marker}; echo private > /tmp/${marker} && cat /tmp/${marker}`);
      expect(receipt.output).toBe('inside\nprivate\n');
      expect(receipt.stderr).toMatch(new RegExp(`touch: cannot touch '/etc/${marker}': Read-only file system`));
      expect(receipt.stderr).toMatch(new RegExp(`touch: cannot touch '/usr/${marker}': Read-only file system`));
      expect(receipt.stderr).toMatch(new RegExp(`touch: cannot touch '.*/${marker}'`));
      expect(await readFile(join(workspace, 'written.txt'), 'utf8')).toBe('kept\n');
      await expect(readFile(`/tmp/${marker}`)).rejects.toThrow(/ENOENT/);
    });

    it('cannot change the host kernel’s settings: /proc/sys is read-only, through the shell executor and the gatekeeper', async () => {
      // the setting is written back with its own value: on the old code a root gateway's tool changed it on the host
      const setting = '/proc/sys/kernel/printk_ratelimit_burst';
      const before = await readFile(setting, 'utf8');
      for (const tool of ['sh', 'run']) {
        const receipt = await run(tool, `cat ${setting} > /tmp/v && cat /tmp/v > ${setting} && echo wrote; grep " /proc/sys " /proc/self/mountinfo | grep -c " ro,"`);
        expect(receipt.output).toBe('1\n');
        expect(receipt.stderr).toMatch(/printk_ratelimit_burst: (Read-only file system|Permission denied)/);
      }
      expect(await readFile(setting, 'utf8')).toBe(before);
    });

    it('cannot change the tools repository the gateway serves', async () => {
      // the repository sits outside the workspace here: declared writable, it would still be read-only
      const receipt = await run('sh', `echo name: evil > ${temp.path}/repo/tools/sh/TOOL.hdlp`);
      expect(receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT' });
      expect(await readFile(join(temp.path, 'repo', 'tools', 'sh', 'TOOL.hdlp'), 'utf8')).toContain('name: sh');
    });
  });

  describe('when it connects to a listener of the host on 127.0.0.1', () => {
    const connect = () =>
      `node -e "require('net').connect(${listenerPort}, '127.0.0.1').on('data', (d) => { process.stdout.write(d); process.exit(0); }).on('error', (e) => { console.error(e.message); process.exit(7); })"`;

    it('fails with the program’s own raw error when no network is declared, and nothing reaches the listener', async () => {
      const before = connections;
      const receipt = await run('sh', connect());
      expect(receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 7 });
      expect(receipt.error).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/);
      expect(connections).toBe(before);
    });

    it('connects when the tool declares network: true', async () => {
      const before = connections;
      const receipt = await run('net', connect());
      expect(receipt).toMatchObject({ ok: true, output: 'hello from the host\n' });
      expect(connections).toBe(before + 1);
    });
  });

  describe('when it runs away', () => {
    async function whileResponsive(call: Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
      let answered = 0;
      let done = false;
      const receipt = call.finally(() => (done = true));
      // the gateway answers other requests while the tool runs into its limit
      while (!done) {
        const health = await request(gateway, 'GET', '/healthz');
        expect(health.status).toBe(200);
        answered += 1;
      }
      expect(answered).toBeGreaterThan(0);
      return receipt;
    }

    it('contains a fork bomb with the process limit, and leaves nothing behind', async () => {
      const marker = `bomb-${process.pid}-${Date.now()}`;
      const receipt = await whileResponsive(run('bomb', `b() { b & b & wait; }; b # ${marker}`));
      expect(receipt).toMatchObject({ ok: false, code: 'RESOURCE_LIMIT', resource_limit: 'processes' });
      expect(receipt.error).toMatch(/^resource limit: the limit of 32 processes was reached/);
      expect(processesMatching(marker)).toEqual([]);
    });

    it('stops a memory hog with RESOURCE_LIMIT naming memory, its raw stderr kept', async () => {
      const receipt = await whileResponsive(run('hog', `node -e "const kept = []; for (;;) kept.push(Buffer.alloc(1 << 20, 1))"`));
      expect(receipt).toMatchObject({ ok: false, code: 'RESOURCE_LIMIT', resource_limit: 'memory' });
      expect(receipt.error).toMatch(/^resource limit: the memory limit of 128 MiB/);
      expect(receipt.stderr).not.toBe('');
      expect(receipt.error).toContain(receipt.stderr);
    });

    it('stops a CPU spinner at its CPU-seconds limit', async () => {
      const receipt = await run('spin', 'while :; do :; done');
      expect(receipt).toMatchObject({ ok: false, code: 'RESOURCE_LIMIT', resource_limit: 'cpu_seconds', signal: 'SIGXCPU', timed_out: false });
    });

    it('holds its private /tmp to its memory limit: a tmpfs is memory no other limit counts', async () => {
      // 'hog' declares 128 MiB; unsized, each run's /tmp was half the host's RAM (review K, K18)
      const receipt = await run('hog', 'head -c 200000000 /dev/zero > /tmp/fill; echo "exit $?"; df -k /tmp | tail -1');
      expect(receipt.output).toMatch(/^exit 1\ntmpfs\s+131072\s/);
      expect(receipt.stderr).toMatch(/No space left on device/);
    });

    it('stops a file at its size limit', async () => {
      const receipt = await run('big', `head -c 1000000 /dev/zero > ${workspace}/big.bin`);
      expect(receipt).toMatchObject({ ok: false, code: 'RESOURCE_LIMIT', resource_limit: 'file_size', signal: 'SIGXFSZ' });
      expect((await readFile(join(workspace, 'big.bin'))).length).toBe(64 * 1024);
    });
  });

  // the spec's §4 checks, now through the sandbox
  describe('when it is the spec’s own example', () => {
    it('returns echo hello as it is', async () => {
      expect(await run('run', 'echo hello')).toMatchObject({ ok: true, output: 'hello\n', error: null, code: null, exit_code: 0 });
      expect(await run('sh', 'echo hello')).toMatchObject({ ok: true, output: 'hello\n', error: null, code: null, exit_code: 0 });
    });

    it('returns stderr in full as the error', async () => {
      const receipt = await run('run', 'i=0; while [ $i -lt 300 ]; do echo "problem $i" >&2; i=$((i+1)); done; ls /nope; exit 3');
      const expected = Array.from({ length: 300 }, (_, index) => `problem ${index}\n`).join('') + "ls: cannot access '/nope': No such file or directory\n";
      expect(receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 3, error: expected, stderr: expected });
    });
  });
});
