import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';
import { refusingBubblewrap } from './support/refusing-bubblewrap.js';
import { shGatewayEachTest } from './support/sh-gateway.js';

// Every sandboxed run gets bubblewrap's --seccomp (review U, U1), and the start-up probe did not try it: on a kernel
// without seccomp filters bubblewrap passed the probe and every run then failed SANDBOX_FAILED, with `sandbox: auto`
// saying the sandbox was on. The probe now tries the real program; refused, the sandbox stays closed: every call is
// refused with the reason, said at start and in /healthz. The refusal is a bubblewrap on HLDP_HOST_PATH that answers
// --seccomp as such a kernel makes it answer, and runs the real one otherwise.
const gateway = shGatewayEachTest('hldp-seccomp-probe-');

describeWithBubblewrap('the sandbox probe, on a kernel that refuses seccomp filters', () => {
  it('says so at start and in /healthz (degraded), and refuses every sandboxed call with the reason: none runs unfiltered', async () => {
    const path = await refusingBubblewrap(join(gateway.folder, 'bin'), '--seccomp', 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument');
    const workspace = join(gateway.folder, 'work');
    await mkdir(workspace);
    const service = await gateway.serve({ HLDP_WORKSPACE: workspace, HLDP_HOST_PATH: path, HLDP_SANDBOX: 'auto' });
    expect(service.stderr()).toMatch(/sandbox: every shell tool, gatekeeper exec and stdio MCP server call fails with SANDBOX_UNAVAILABLE: .*PR_SET_SECCOMP/);
    const health = (await request(service, 'GET', '/healthz')).json as { status: string; sandbox: Record<string, unknown> };
    expect(health.status).toBe('degraded');
    expect(health.sandbox).toMatchObject({ state: 'on', mode: 'auto', seccomp_reason: expect.stringContaining('prctl(PR_SET_SECCOMP): Invalid argument') });
    const receipt = (await request(service, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: 'touch ran' } } })).json as Record<string, unknown>;
    expect(receipt).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', error: expect.stringContaining("the kernel refuses the sandbox's system-call filter") });
    expect(existsSync(join(workspace, 'ran'))).toBe(false);
  });

  it('with the filter taken, says nothing of it and runs the call in the sandbox', async () => {
    const workspace = join(gateway.folder, 'work');
    await mkdir(workspace);
    const service = await gateway.serve({ HLDP_WORKSPACE: workspace, HLDP_SANDBOX: 'auto', HLDP_SANDBOX_RUN_AS: 'root' });
    const health = (await request(service, 'GET', '/healthz')).json as { status: string; sandbox: Record<string, unknown> };
    expect(health).toMatchObject({ status: 'ok', sandbox: { state: 'on' } });
    expect(health.sandbox.seccomp_reason).toBeUndefined();
    const receipt = (await request(service, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: 'touch ran' } } })).json as Record<string, unknown>;
    expect(receipt).toMatchObject({ ok: true });
    expect(existsSync(join(workspace, 'ran'))).toBe(true);
  });
});
