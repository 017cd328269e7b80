import { chmod, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { processesMatching, uniqueSleep } from '../executors/support/processes.js';
import { shGatewayEachTest } from './support/sh-gateway.js';
import { describeAsRoot } from '../helpers/needs-root.js';

// The sandbox probe tries setpriv, the PID namespace and prlimit in one process, and bubblewrap without asking its
// version first (issue #18: fewer processes at start). Where one of those programs cannot run, what the server says
// and does must be what probing each alone found: each is reproduced by a program of that name early on PATH.
const fixture = shGatewayEachTest();

// `hldp serve` with these programs first on PATH (`sandbox: off`: runs are contained by the PID namespace's launcher alone)
async function serveWith(programs: Record<string, string>, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const bin = join(fixture.folder, 'bin');
  await mkdir(bin);
  for (const [name, script] of Object.entries(programs)) {
    await writeFile(join(bin, name), script);
    await chmod(join(bin, name), 0o755);
  }
  return fixture.serve({ HLDP_WORKSPACE: fixture.folder, PATH: `${bin}:${process.env.PATH}`, HLDP_HOST_PATH: `${bin}:${process.env.PATH}`, ...env });
}

const health = async (gateway: ServiceProcess) => ((await request(gateway, 'GET', '/healthz')).json as { sandbox: { state: string; reason?: string; containment: string; limits: { rlimits: boolean; reason?: string } } }).sandbox;

// a call that leaves a process behind in a new session: gone when the call ends only if the PID namespace holds
async function leavesNothingBehind(gateway: ServiceProcess): Promise<void> {
  const sleep = uniqueSleep();
  const receipt = (await request(gateway, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: `setsid ${sleep.command} >/dev/null 2>&1 & sleep 0.3; echo done` } } })).json;
  expect(receipt).toMatchObject({ ok: true, output: 'done\n' });
  expect(processesMatching(sleep.marker)).toEqual([]);
}

describe('the sandbox probe', () => {
  describe('when prlimit cannot run', () => {
    it('says at start that the limits are not enforced, and still contains every run in a PID namespace', async () => {
      const gateway = await serveWith({ prlimit: '#!/bin/sh\necho "prlimit: failed to set the NOFILE resource limit" >&2\nexit 1\n' }, { HLDP_SANDBOX: 'off' });
      expect(gateway.stderr()).toContain("resource limits: util-linux's prlimit cannot run");
      expect(await health(gateway)).toMatchObject({ containment: 'pid-namespace', limits: { rlimits: false } });
      await leavesNothingBehind(gateway);
    });
  });

  describe('when setpriv cannot run', () => {
    const brokenSetpriv = { setpriv: '#!/bin/sh\necho "setpriv: not here" >&2\nexit 1\n' };
    it('still contains every run in a PID namespace, with the limits enforced', async () => {
      // a root gateway needs setpriv to run tools as sandbox.run_as (below): this one is told to run them as root
      const gateway = await serveWith(brokenSetpriv, { HLDP_SANDBOX: 'off', ...(process.getuid?.() === 0 ? { HLDP_SANDBOX_RUN_AS: 'root' } : {}) });
      expect(gateway.stderr()).not.toContain('process containment:');
      expect(await health(gateway)).toMatchObject({ containment: 'pid-namespace', limits: { rlimits: true } });
      expect((await health(gateway)).limits.reason ?? '').not.toContain('prlimit');
      await leavesNothingBehind(gateway);
    });
  });

  describeAsRoot('when setpriv cannot run', () => {
    // a root gateway runs no tool as root unless told to: without setpriv it runs none, and says why
    it('refuses every call of a root gateway with a whole receipt saying why, and runs nothing', async () => {
      const gateway = await serveWith({ setpriv: '#!/bin/sh\necho "setpriv: not here" >&2\nexit 1\n' }, { HLDP_SANDBOX: 'off' });
      const receipt = (await request(gateway, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: `touch ${join(fixture.folder, 'ran')}` } } })).json as Record<string, unknown>;
      expect(receipt).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', exit_code: null, output: '' });
      expect(receipt.error).toMatch(/runs no tool as root, but it cannot make a tool uid 65534.*setpriv: not here/);
      expect(gateway.stderr()).toMatch(/run_as: this gateway runs as root and runs no tool as root/);
      expect(await readdir(fixture.folder)).not.toContain('ran');
    });
  });

  describe('when bubblewrap cannot be started at all', () => {
    it('says so at start (sandbox off, with the fix), and still contains every run in a PID namespace', async () => {
      // a PATH of every program this host has but bwrap (a program found further on PATH would be run instead of a
      // broken one first on it): the spawn itself fails
      const bin = join(fixture.folder, 'without-bwrap');
      await mkdir(bin);
      for (const folder of new Set((process.env.PATH ?? '').split(':').filter((folder) => folder.startsWith('/')))) {
        for (const name of await readdir(folder).catch(() => [])) {
          if (name !== 'bwrap') await symlink(join(folder, name), join(bin, name)).catch(() => undefined);
        }
      }
      const gateway = await serveWith({}, { PATH: bin, HLDP_HOST_PATH: bin });
      expect(gateway.stderr()).toContain('hldp: WARNING: sandbox: off.');
      const sandbox = await health(gateway);
      expect(sandbox).toMatchObject({ state: 'off', containment: 'pid-namespace' });
      expect(sandbox.reason).toContain('bubblewrap (bwrap) cannot be started');
      expect(sandbox.reason).toContain('install bubblewrap');
      await leavesNothingBehind(gateway);
    });
  });
});
