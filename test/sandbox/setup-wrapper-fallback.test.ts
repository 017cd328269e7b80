import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';
import { shGatewayEachTest } from './support/sh-gateway.js';

// bubblewrap is started by a few lines of perl that make the host read-only to its setup (host-read-only.ts). Where
// that wrapper cannot run (no perl, a kernel older than 5.12), the start's probe finds it, bubblewrap starts as
// before, and the operator hears so at start and in /healthz, with what a tool could then do: never silently. A host
// without a working perl is made here by a `perl` that fails, first on the gateway's host PATH.
const fixture = shGatewayEachTest('hldp-setup-fallback-');

interface Health {
  status: string;
  sandbox: { state: string; setup_reason?: string };
}

async function serve(programs: Record<string, string>): Promise<ServiceProcess> {
  const bin = join(fixture.folder, 'bin');
  await mkdir(bin);
  for (const [name, script] of Object.entries(programs)) {
    await writeFile(join(bin, name), script);
    await chmod(join(bin, name), 0o755);
  }
  const workspace = join(fixture.folder, 'ws');
  await mkdir(workspace);
  await chmod(fixture.folder, 0o755);
  await chmod(workspace, 0o777);
  return fixture.serve({ HLDP_WORKSPACE: workspace, HLDP_SANDBOX: 'required', HLDP_HOST_PATH: `${bin}:${process.env.PATH}` });
}

async function callOk(gateway: ServiceProcess): Promise<void> {
  const receipt = (await request(gateway, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: 'echo ran > out && cat out' } } })).json;
  expect(receipt).toMatchObject({ ok: true, output: 'ran\n' });
}

describeWithBubblewrap("bubblewrap's setup wrapper, probed at start", () => {
  it('where it cannot run: bubblewrap starts as before, and the start log and /healthz say so, with the fix', async () => {
    const gateway = await serve({ perl: '#!/bin/sh\necho "perl: cannot run here" >&2\nexit 2\n' });
    expect(gateway.stderr()).toContain("hldp: WARNING: sandbox: bubblewrap's setup cannot be kept from writing to the host: perl: cannot run here.");
    const health = (await request(gateway, 'GET', '/healthz')).json as Health;
    // tools still run, sandboxed as before the wrapper: a warning, not a degraded service
    expect(health).toMatchObject({ status: 'ok', sandbox: { state: 'on' } });
    expect(health.sandbox.setup_reason).toContain('perl: cannot run here');
    expect(health.sandbox.setup_reason).toContain("needs perl (Debian's perl-base) and Linux 5.12");
    await callOk(gateway);
  });

  it('where it runs: nothing said', async () => {
    const gateway = await serve({});
    expect(gateway.stderr()).not.toContain("bubblewrap's setup");
    const health = (await request(gateway, 'GET', '/healthz')).json as Health;
    expect(health).toMatchObject({ status: 'ok', sandbox: { state: 'on' } });
    expect(health.sandbox.setup_reason).toBeUndefined();
    await callOk(gateway);
  });
});
