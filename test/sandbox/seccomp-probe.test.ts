import { execFileSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// Every sandboxed run gets bubblewrap's --seccomp (review U, U1), and the start-up probe did not try it: on a kernel
// without seccomp filters bubblewrap passed the probe and every run then failed SANDBOX_FAILED, with `sandbox: auto`
// saying the sandbox was on. The probe now tries the real program; refused, the sandbox stays closed: every call is
// refused with the reason, said at start and in /healthz. The refusal is a bubblewrap on HLDP_HOST_PATH that answers
// --seccomp as such a kernel makes it answer, and runs the real one otherwise.
let temp: { path: string; cleanup: () => Promise<void> };
let service: ServiceProcess | undefined;

beforeEach(async () => {
  temp = await makeTempDir('hldp-seccomp-probe-');
  await writeFiles(join(temp.path, 'repo'), {
    'tools/sh/TOOL.hdlp': makeToolYaml('sh', { executor: 'shell', method: 'run', params_schema: '{ cmd: { type: string, required: true } }', shell: '{ script: "eval \\"$HLDP_PARAM_CMD\\"" }' }),
  });
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
  await temp.cleanup();
});

describeWithBubblewrap('the sandbox probe, on a kernel that refuses seccomp filters', () => {
  it('says so at start and in /healthz (degraded), and refuses every sandboxed call with the reason: none runs unfiltered', async () => {
    const bwrap = execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
    const bin = join(temp.path, 'bin');
    await mkdir(bin);
    const refusing = `#!/bin/sh\nfor a in "$@"; do [ "$a" = --seccomp ] && { echo 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument' >&2; exit 1; }; done\nexec ${bwrap} "$@"\n`;
    await writeFile(join(bin, 'bwrap'), refusing);
    await chmod(join(bin, 'bwrap'), 0o755);
    const workspace = join(temp.path, 'work');
    await mkdir(workspace);
    service = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
      { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn', HLDP_HOST_PATH: `${bin}:${process.env.PATH}`, HLDP_SANDBOX: 'auto' },
      / at (http:\/\/[\d.:]+)\n/,
    );
    expect(service.stderr()).toMatch(/sandbox: every shell tool, gatekeeper exec and stdio MCP server call fails with SANDBOX_UNAVAILABLE: .*PR_SET_SECCOMP/);
    const health = (await request(service, 'GET', '/healthz')).json as { status: string; sandbox: Record<string, unknown> };
    expect(health.status).toBe('degraded');
    expect(health.sandbox).toMatchObject({ state: 'on', mode: 'auto', seccomp_reason: expect.stringContaining('prctl(PR_SET_SECCOMP): Invalid argument') });
    const receipt = (await request(service, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: 'touch ran' } } })).json as Record<string, unknown>;
    expect(receipt).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', error: expect.stringContaining("the kernel refuses the sandbox's system-call filter") });
    expect(existsSync(join(workspace, 'ran'))).toBe(false);
  });

  it('with the filter taken, says nothing of it and runs the call in the sandbox', async () => {
    const workspace = join(temp.path, 'work');
    await mkdir(workspace);
    service = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
      { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'auto', HLDP_SANDBOX_RUN_AS: 'root' },
      / at (http:\/\/[\d.:]+)\n/,
    );
    const health = (await request(service, 'GET', '/healthz')).json as { status: string; sandbox: Record<string, unknown> };
    expect(health).toMatchObject({ status: 'ok', sandbox: { state: 'on' } });
    expect(health.sandbox.seccomp_reason).toBeUndefined();
    const receipt = (await request(service, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: 'touch ran' } } })).json as Record<string, unknown>;
    expect(receipt).toMatchObject({ ok: true });
    expect(existsSync(join(workspace, 'ran'))).toBe(true);
  });
});
