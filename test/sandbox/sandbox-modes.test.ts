import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { processesMatching, uniqueSleep } from '../executors/support/processes.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';
import { evalShTool } from './support/eval-tool.js';

// What `sandbox: auto | required | off` do where bubblewrap cannot run. The host condition is reproduced with a
// `bwrap` early on PATH that fails as Ubuntu 24.04's does when AppArmor restricts unprivileged user namespaces.
const UBUNTU_FAILURE = 'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted';

let temp: { path: string; cleanup: () => Promise<void> };
const services: ServiceProcess[] = [];

beforeEach(async () => {
  temp = await makeTempDir();
  await writeFiles(join(temp.path, 'repo'), {
    'tools/sh/TOOL.hdlp': evalShTool(),
    'tools/run/TOOL.hdlp': makeToolYaml('run', { params_schema: '{ cmd: { type: string, required: true } }' }),
  });
});
afterEach(async () => {
  while (services.length) await services.pop()!.stop();
  await temp.cleanup();
});

async function serve(env: Record<string, string>, brokenBubblewrap: boolean): Promise<ServiceProcess> {
  const extra: Record<string, string> = {};
  if (brokenBubblewrap) {
    const bin = join(temp.path, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'bwrap'), `#!/bin/sh\n[ "$1" = --version ] && { echo 'bubblewrap 0.9.0'; exit 0; }\necho '${UBUNTU_FAILURE}' >&2\nexit 1\n`);
    await chmod(join(bin, 'bwrap'), 0o755);
    extra.PATH = `${bin}:${process.env.PATH}`;
    // the gateway finds its host programs in the system's folders first: this host's are named
    extra.HLDP_HOST_PATH = extra.PATH;
  }
  const service = await spawnService(
    ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
    { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', ...extra, ...env },
    / at (http:\/\/[\d.:]+)\n/,
  );
  services.push(service);
  return service;
}

const call = async (gateway: ServiceProcess, tool: string, cmd: string) => (await request(gateway, 'POST', '/v1/call', { body: { tool, params: { cmd } } })).json as Record<string, unknown>;

describe('sandbox: auto where bubblewrap cannot run', () => {
  let gateway: ServiceProcess;
  beforeEach(async () => {
    gateway = await serve({}, true);
  });

  it('warns loudly at start, reports sandbox off with the reason and the fix in /healthz, and runs tools unisolated, yet still ends every process a call started', async () => {
    expect(gateway.stderr()).toContain('hldp: WARNING: sandbox: off. Local tools run unisolated');
    expect(gateway.stderr()).toContain(UBUNTU_FAILURE);
    const health = (await request(gateway, 'GET', '/healthz')).json as { status: string; sandbox: Record<string, unknown> };
    expect(health.status).toBe('ok');
    expect(health.sandbox).toMatchObject({ state: 'off', mode: 'auto', containment: 'pid-namespace' });
    expect(health.sandbox.reason).toContain(UBUNTU_FAILURE);
    expect(health.sandbox.reason).toContain('apparmor_restrict_unprivileged_userns');
    expect(await call(gateway, 'sh', 'echo hello')).toMatchObject({ ok: true, output: 'hello\n' });
    // the PID namespace holds without bubblewrap
    for (const tool of ['sh', 'run']) {
      const sleep = uniqueSleep();
      expect(await call(gateway, tool, `setsid ${sleep.command} >/dev/null 2>&1 & sleep 0.3; echo done`)).toMatchObject({ ok: true, output: 'done\n' });
      expect(processesMatching(sleep.marker)).toEqual([]);
    }
  });
});

describe('sandbox: required where bubblewrap cannot run', () => {
  it('refuses every local tool with SANDBOX_UNAVAILABLE and the reason, and reports degraded health', async () => {
    const gateway = await serve({ HLDP_SANDBOX: 'required' }, true);
    expect(gateway.stderr()).toContain('hldp: WARNING: sandbox: required, but it cannot run here');
    for (const tool of ['sh', 'run']) {
      const receipt = await call(gateway, tool, 'echo should-not-run');
      expect(receipt).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
      expect(receipt.error).toContain(UBUNTU_FAILURE);
    }
    expect((await request(gateway, 'GET', '/healthz')).json).toMatchObject({ status: 'degraded', sandbox: { state: 'off', mode: 'required' } });
  });
});

describe('sandbox: off', () => {
  it('says that tools run unisolated because the configuration says so', async () => {
    const gateway = await serve({ HLDP_SANDBOX: 'off' }, false);
    const health = (await request(gateway, 'GET', '/healthz')).json as { sandbox: { state: string; reason: string } };
    expect(health.sandbox).toMatchObject({ state: 'off', mode: 'off', containment: 'pid-namespace' });
    expect(health.sandbox.reason).toContain("'sandbox: off'");
    expect(gateway.stderr()).toContain('hldp: WARNING: sandbox: off.');
  });
});

describeWithBubblewrap('sandbox: required where bubblewrap runs', () => {
  it('runs local tools in the sandbox', async () => {
    const gateway = await serve({ HLDP_SANDBOX: 'required' }, false);
    expect((await request(gateway, 'GET', '/healthz')).json).toMatchObject({ status: 'ok', sandbox: { state: 'on', mode: 'required' } });
    expect(await call(gateway, 'sh', 'touch /etc/hldp-required-test')).toMatchObject({ ok: false, stderr: expect.stringContaining('Read-only file system') });
  });
});

describeWithBubblewrap('sandbox: auto where bubblewrap fails once at start for a reason that passes', () => {
  it('probes again and runs tools in the sandbox, not unisolated for the gateway’s whole life', async () => {
    // a bubblewrap that fails as under a moment's pressure (EAGAIN making namespaces) at its first run, then is the real one
    const bin = join(temp.path, 'bin');
    await mkdir(bin);
    const real = (await import('node:child_process')).execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
    const once = join(temp.path, 'failed-once');
    await writeFile(join(bin, 'bwrap'), `#!/bin/sh\nif [ ! -e ${once} ]; then touch ${once}; echo 'bwrap: Creating new namespace failed: Resource temporarily unavailable' >&2; exit 1; fi\nexec ${real} "$@"\n`);
    await chmod(join(bin, 'bwrap'), 0o755);
    const service = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
      { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', PATH: `${bin}:${process.env.PATH}`, HLDP_HOST_PATH: `${bin}:${process.env.PATH}` },
      / at (http:\/\/[\d.:]+)\n/,
    );
    services.push(service);
    expect(((await request(service, 'GET', '/healthz')).json as { sandbox: { state: string } }).sandbox.state).toBe('on');
    expect(service.stderr()).not.toContain('WARNING: sandbox');
    // in the sandbox: its own few processes, and nothing of the gateway's environment
    const receipt = (await request(service, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: 'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c "^HLDP_CACHE_DIR="; ls /proc | grep -c "^[0-9]"' } } })).json as { ok: boolean; output: string };
    const [seen, processes] = receipt.output.trim().split('\n').map(Number);
    expect(seen).toBe(0);
    expect(processes).toBeLessThan(10);
  });
});

describeWithBubblewrap('sandbox: required where bubblewrap fails at start for longer than its retries', () => {
  it('probes again when it refuses a call, and runs tools in the sandbox once bubblewrap works, without a restart', async () => {
    // a bubblewrap that fails as under pressure (EAGAIN making namespaces) for as long as a file says so: past the
    // start's retries, a required gateway refused every local call until it was restarted (review K, S6)
    const bin = join(temp.path, 'bin');
    await mkdir(bin);
    const real = (await import('node:child_process')).execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
    const failing = join(temp.path, 'failing');
    await writeFile(failing, '');
    await writeFile(join(bin, 'bwrap'), `#!/bin/sh\nif [ -e ${failing} ]; then echo 'bwrap: Creating new namespace failed: Resource temporarily unavailable' >&2; exit 1; fi\nexec ${real} "$@"\n`);
    await chmod(join(bin, 'bwrap'), 0o755);
    const service = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
      { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', PATH: `${bin}:${process.env.PATH}`, HLDP_HOST_PATH: `${bin}:${process.env.PATH}` },
      / at (http:\/\/[\d.:]+)\n/,
    );
    services.push(service);
    expect((await request(service, 'GET', '/healthz')).json).toMatchObject({ status: 'degraded', sandbox: { state: 'off', mode: 'required' } });
    expect(await call(service, 'sh', 'echo ran')).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', error: expect.stringContaining('Resource temporarily unavailable') });
    await rm(failing);
    // each refused call may probe again, at most once a second: the first call after that runs
    let receipt: { ok: boolean; code?: string; output?: string } = { ok: false };
    for (let attempt = 0; attempt < 40 && !receipt.ok; attempt += 1) {
      receipt = (await call(service, 'sh', 'ls /proc | grep -c "^[0-9]"; touch /etc/hldp-s6-test 2>/dev/null || echo read-only')) as typeof receipt;
      if (!receipt.ok) {
        expect(receipt).toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    expect(receipt).toMatchObject({ ok: true });
    const [processes, etc] = receipt.output!.trim().split('\n');
    expect(Number(processes)).toBeLessThan(10);
    expect(etc).toBe('read-only');
    expect((await request(service, 'GET', '/healthz')).json).toMatchObject({ status: 'ok', sandbox: { state: 'on', mode: 'required' } });
    // a log line goes out through the logger's asynchronous writes: it may reach the pipe after an answer does
    await vi.waitFor(() => expect(service.stderr()).toContain('sandbox: on after probing bubblewrap again'), { timeout: 10_000, interval: 20 });
  });
});
