// Review userZ11, U11-1: a config with a `notify` target whose secret is read from the environment (`secret_env`)
// stopped `hldp mcp` at start when the MCP client's environment lacked that secret ("notify[0].secret_env: the
// environment variable … is not set", exit 2), though only `hldp serve` delivers webhooks: every agent's client line had
// to carry the webhook-signing secret. Real `hldp mcp`, `hldp confirm` and `hldp serve` processes.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { runWithInput } from '../mcp-front/support.js';

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let config: string;

beforeAll(async () => {
  temp = await makeTempDir();
  const repo = join(temp.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, { 'tools/say/TOOL.hdlp': makeToolYaml('say', { executor: 'shell', method: 'run', shell: '{ argv: [echo, said] }' }) });
  config = join(temp.path, 'hldp.yaml');
  await writeFile(config, ['repository: { source: repo }', 'notify:', '  - { url: "http://127.0.0.1:9/hook", secret_env: HLDP_TEST_U11_NOTIFY_SECRET }', ''].join('\n'));
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_CONFIG: '', HLDP_TOKEN: '', HLDP_TEST_U11_NOTIFY_SECRET: '' };
}, 60_000);
afterAll(() => temp?.cleanup());

describe('a notify target whose secret_env is not set', () => {
  it('does not stop hldp mcp, which sends no webhook: it starts and runs a call', async () => {
    const run = await runWithInput([
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'say', arguments: {} } },
    ], env, ['--config', config]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('HLDP_TEST_U11_NOTIFY_SECRET');
    const answer = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id?: number; result?: { structuredContent: Record<string, unknown> } }).find((message) => message.id === 2);
    expect(answer?.result?.structuredContent).toMatchObject({ ok: true, output: 'said\n' });
  }, 120_000);

  it('does not stop hldp call either', async () => {
    const run = await runCli(['call', 'say', '--config', config], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('said');
  }, 120_000);

  it('still stops hldp serve, which signs the deliveries, naming the variable', async () => {
    const run = await runCli(['serve', '--port', '0', '--config', config], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('notify[0].secret_env: the environment variable HLDP_TEST_U11_NOTIFY_SECRET is not set');
  }, 120_000);
});
