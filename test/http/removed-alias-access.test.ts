// Review Z11, Z11-2: a call of a removed tool's alias told alice the removed tool's name ("'ship-payroll', an alias of
// tool 'secret-deploy', was removed …"), a tool her `tools: [pub]` never let her see. She is now answered as for a
// name never written; the operator, who could see it, is still told which tool went and when.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKENS = { operator: 'z11-alias-admin-token-0123456789', alice: 'z11-alias-alice-token-0123456789' } as const;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
let temp: { path: string; cleanup: () => Promise<void> };
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-z11-removed-alias-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/pub/TOOL.hdlp': makeToolYaml('pub', { executor: 'shell', shell: '{ argv: [echo, pub] }' }),
    'tools/secret-deploy/TOOL.hdlp': makeToolYaml('secret-deploy', { executor: 'shell', shell: '{ argv: [echo, s] }', aliases: '[ship-payroll]' }),
  });
  const configFile = join(temp.path, 'config.yaml');
  await writeFile(configFile, `principals:\n  alice: { roles: [agent], tools: [pub], token_sha256: ${digest(TOKENS.alice)} }\n`);
  server = await spawnService(
    ['serve', '--port', '0', '--repo', repo, '--config', configFile],
    { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.operator, HLDP_POLL_INTERVAL_MS: '600000' },
    / at (http:\/\/[\d.:]+)\n/,
  );
  await commitFiles(repo, { 'tools/secret-deploy': null }, 'remove secret-deploy');
  const scan = await fetch(`${server.url}/v1/scan`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.operator}` } });
  expect(scan.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

const call = async (who: keyof typeof TOKENS): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS[who]}`, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'ship-payroll', params: {} }) });
  return { status: response.status, text: await response.text() };
};

it("a call of a removed tool's alias does not name the tool to alice, who never could see it", async () => {
  const alice = await call('alice');
  expect(alice.status).toBe(404);
  expect(alice.text).toContain('TOOL_NOT_FOUND');
  expect(alice.text).not.toMatch(/secret-deploy|removed_at/);
});

it('still tells the operator which tool went', async () => {
  const operator = await call('operator');
  expect(operator.status).toBe(404);
  expect(operator.text).toContain("an alias of tool 'secret-deploy', was removed");
});
