import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import type { ServedRepository } from '../helpers/served-repository.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { testFolder } from '../helpers/test-folder.js';
import { aliasBombYaml } from '../helpers/hostile-yaml.js';

// The process-level guard: nothing a repository contains may end `hldp serve` or `hldp scan`. A real
// `hldp serve` over a repository served by `git http-backend`; the bomb is pushed with real git.

const folder = testFolder();
let url: string;
let push: ServedRepository['push'];
let env: NodeJS.ProcessEnv;
const services: ServiceProcess[] = [];

const echoTool = (name: string) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: '{ argv: [echo, hello] }' });

beforeEach(async () => {
  ({ url, push } = await folder.serve());
  env = folder.cliEnv();
});
// before the folder's own: the services go before the git server and the folder
afterEach(async () => {
  while (services.length) await services.pop()!.stop();
});

describe('hldp serve over a served git repository when an alias bomb is pushed', () => {
  it('survives the background rescan and POST /v1/scan, reports the bomb, and still runs the other tools', async () => {
    await push({ 'tools/good/TOOL.hdlp': echoTool('good') });
    const service = await spawnService(['serve', '--port', '0', '--repo', url], { ...env, HLDP_POLL_INTERVAL_MS: '200' }, / at (http:\/\/[\d.:]+)\n/);
    services.push(service);
    const bombCommit = await push({ 'tools/bomb/TOOL.hdlp': aliasBombYaml('bomb') });
    // the poll's background rescan is where an unhandled rejection used to end the process
    await waitFor(async () => (await request(service, 'GET', '/healthz')).json?.commit === bombCommit);
    const health = await request(service, 'GET', '/healthz');
    expect(health.json).toMatchObject({ status: 'degraded', commit: bombCommit, tools: 1, errors: 1 });
    const scan = await request(service, 'POST', '/v1/scan');
    expect(scan.status).toBe(200);
    expect(scan.json.errors).toEqual([expect.objectContaining({ file: 'tools/bomb/TOOL.hdlp', code: 'YAML_RESOURCE_LIMIT', line: 11 })]);
    const call = await request(service, 'POST', '/v1/call', { body: { tool: 'good', params: {} } });
    expect(call.json).toMatchObject({ ok: true, output: 'hello\n' });
    // a later commit is still served: the bomb did not stop the scans
    const fixed = await push({ 'tools/bomb/TOOL.hdlp': echoTool('bomb') });
    await waitFor(async () => (await request(service, 'GET', '/healthz')).json?.commit === fixed);
    expect((await request(service, 'POST', '/v1/call', { body: { tool: 'bomb', params: {} } })).json).toMatchObject({ ok: true });
    expect(service.child.exitCode).toBeNull();
  });

  it('lets hldp scan and hldp serve start over a repository that already holds it', async () => {
    await push({ 'tools/good/TOOL.hdlp': echoTool('good'), 'tools/bomb/TOOL.hdlp': aliasBombYaml('bomb') });
    const scan = await runCli(['scan', '--repo', url, '--json'], { env });
    expect(scan.code).toBe(0);
    expect(JSON.parse(scan.stdout)).toMatchObject({ tools: [{ name: 'good' }], errors: [{ file: 'tools/bomb/TOOL.hdlp', code: 'YAML_RESOURCE_LIMIT' }] });
    const service = await spawnService(['serve', '--port', '0', '--repo', url], env, / at (http:\/\/[\d.:]+)\n/);
    services.push(service);
    expect((await request(service, 'GET', '/v1/tools/good')).status).toBe(200);
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition never held');
}
