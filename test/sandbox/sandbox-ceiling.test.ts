import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// Review K, S4: a TOOL.hdlp set its own sandbox — the host's network, any limits, paths to write — with nothing the
// operator could hold it to, though anyone with push access writes the repository. sandbox.ceiling is that hold:
// `hldp validate --config` warns at the field, and the gateway refuses the call with a whole receipt.
let temp: { path: string; cleanup: () => Promise<void> };
let gateway: ServiceProcess;
let outside: string;

type Receipt = { ok: boolean; code?: string; output: string; error?: string; exit_code: number | null; id?: string; started_at?: string; finished_at?: string; tool?: string };
const call = async (tool: string) => (await request(gateway, 'POST', '/v1/call', { body: { tool, params: {} } })).json as Receipt;

const shellTool = (name: string, argv: string, sandbox?: string) =>
  makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${argv} }`, ...(sandbox ? { sandbox } : {}) });

describeWithBubblewrap("the operator's sandbox ceiling", () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    // outside the workspace and outside the host's /tmp (which no definition may declare without the ceiling): never made
    outside = `/srv/hldp-ceiling-test-${basename(temp.path)}/outside`;
    await mkdir(join(temp.path, 'workspace', 'scratch'), { recursive: true });
    await writeFiles(join(temp.path, 'repo'), {
      'tools/online/TOOL.hdlp': shellTool('online', '[echo, ran]', '{ network: true }'),
      'tools/hungry/TOOL.hdlp': shellTool('hungry', '[echo, ran]', '{ limits: { memory: 512MiB, cpu_seconds: 5 } }'),
      'tools/writer/TOOL.hdlp': shellTool('writer', '[echo, ran]', `{ filesystem: { write: ["${outside}"] } }`),
      'tools/scratch/TOOL.hdlp': shellTool('scratch', '[echo, ran]', '{ filesystem: { write: [scratch] } }'),
      'tools/limits/TOOL.hdlp': shellTool('limits', '[sh, -c, "ulimit -d; ulimit -t"]'),
    });
    await writeFile(join(temp.path, 'config.yaml'), 'sandbox:\n  ceiling: { network: false, memory: 256MiB, cpu_seconds: 10, writable_roots: [] }\n');
    gateway = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo'), '--config', join(temp.path, 'config.yaml')],
      { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: '' },
      / at (http:\/\/[\d.:]+)\n/,
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await temp?.cleanup();
  });

  it.each([
    ['online', /'sandbox\.network: true' is beyond the gateway's ceiling/],
    ['hungry', /'sandbox\.limits\.memory' 512 MiB is beyond the gateway's ceiling of 256 MiB/],
    ['writer', /'sandbox\.filesystem\.write' '.*outside' is outside the workspace and every folder sandbox\.ceiling\.writable_roots allows/],
  ])('refuses %s, which asks for more, with a whole receipt saying which field', async (tool, reason) => {
    const receipt = await call(tool);
    expect(receipt).toMatchObject({ ok: false, tool, code: 'SANDBOX_UNAVAILABLE', exit_code: null, output: '' });
    expect(receipt.error).toMatch(reason);
    expect(receipt.id).toBeTruthy();
    expect(receipt.finished_at).toBeTruthy();
    const stored = (await request(gateway, 'GET', `/v1/receipts/${receipt.id}`)).json as Receipt;
    expect(stored).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
  });

  it('runs a tool within it, a path inside the workspace writable whatever writable_roots says', async () => {
    expect(await call('scratch')).toMatchObject({ ok: true, output: 'ran\n' });
  });

  it('lowers the default limits of a tool that declares none to the ceiling', async () => {
    // RLIMIT_DATA in KiB, RLIMIT_CPU in seconds, as the tool's own shell reads them
    expect(await call('limits')).toMatchObject({ ok: true, output: `${256 * 1024}\n10\n` });
  });

  it('is warned by hldp validate --config at each field beyond it, which stays a warning', async () => {
    const run = await runCli(['validate', '--config', join(temp.path, 'config.yaml'), join(temp.path, 'repo')], { env: { HLDP_WORKSPACE: join(temp.path, 'workspace') } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/tools\/online\/TOOL\.hdlp:\d+:\d+: warning: 'sandbox\.network: true' is beyond/);
    expect(run.stdout).toMatch(/tools\/hungry\/TOOL\.hdlp:\d+:\d+: warning: 'sandbox\.limits\.memory' 512 MiB is beyond/);
    expect(run.stdout).toMatch(/tools\/writer\/TOOL\.hdlp:\d+:\d+: warning: 'sandbox\.filesystem\.write'/);
    expect(run.stdout).not.toMatch(/scratch|limits\/TOOL/);
  });
});
