import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// A catastrophic `pattern` in a params schema must not freeze the server: patterns run on RE2 (linear
// time). With the backtracking RegExp, the call below takes 2^41 steps and /healthz waits behind it.

let temp: { path: string; cleanup: () => Promise<void> };
let service: ServiceProcess | undefined;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  temp = await makeTempDir();
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
  await temp.cleanup();
});

describe('hldp serve with a catastrophic pattern in a params schema', () => {
  it('answers the call with 422 and a concurrent /healthz at once', async () => {
    const repo = join(temp.path, 'repo');
    await writeFiles(repo, {
      'tools/digits/TOOL.hdlp': makeToolYaml('digits', { executor: 'shell', method: 'run', params_schema: '{ s: { type: string, required: true, pattern: "^[0-9]+$" } }', shell: '{ argv: [echo, "{s}"] }' }),
      'tools/evil/TOOL.hdlp': makeToolYaml('evil', { executor: 'shell', method: 'run', params_schema: '{ s: { type: string, required: true, pattern: "^(a+)+$" } }', shell: '{ argv: [echo, "{s}"] }' }),
    });
    service = await spawnService(['serve', '--port', '0', '--repo', repo], env, / at (http:\/\/[\d.:]+)\n/);
    const [call, health] = await Promise.all([
      request(service, 'POST', '/v1/call', { body: { tool: 'evil', params: { s: `${'a'.repeat(40)}!` } } }),
      request(service, 'GET', '/healthz'),
    ]);
    expect(health.status).toBe(200);
    expect(call.status).toBe(422);
    expect(call.json.problems).toEqual([{ param: 's', message: 'must match pattern "^(a+)+$"' }]);
    // and the pattern still does its job, as does another tool's own pattern beside it
    expect((await request(service, 'POST', '/v1/call', { body: { tool: 'evil', params: { s: 'aaaa' } } })).json).toMatchObject({ ok: true, output: 'aaaa\n' });
    expect((await request(service, 'POST', '/v1/call', { body: { tool: 'digits', params: { s: 'aaaa' } } })).status).toBe(422);
    expect((await request(service, 'POST', '/v1/call', { body: { tool: 'digits', params: { s: '42' } } })).json).toMatchObject({ ok: true, output: '42\n' });
  });
});

describe('hldp validate with a pattern RE2 cannot run', () => {
  it('reports it at file:line:col and exits 1', async () => {
    await writeFiles(temp.path, { 'tools/look/TOOL.hdlp': makeToolYaml('look', { params_schema: '\n  ref: { type: string, pattern: "^(?!-)" }' }) });
    const run = await runCli(['validate', 'tools'], { env, cwd: temp.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^tools\/look\/TOOL.hdlp:7:3[0-9]: error: pattern '\^\(\?!-\)' cannot run on RE2/);
  });
});

describe('a shell tool with numbers in argv', () => {
  it('runs them as literal arguments', async () => {
    await writeFiles(temp.path, { 'repo/tools/count/TOOL.hdlp': makeToolYaml('count', { executor: 'shell', method: 'run', shell: '{ argv: [seq, 1, 3] }' }) });
    const run = await runCli(['call', 'count', '--repo', join(temp.path, 'repo')], { env });
    expect(run).toMatchObject({ code: 0, stdout: '1\n2\n3\n' });
  });
});
