// Review Z11, Z11-1: GET /v1/tools/:name answered TOOL_BROKEN with the file and every error to alice, whom POST /v1/call,
// tool_load, matches and GET /v1/tools withhold them from (review Z2, Z2-3; errors17). The operator is still told.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brokenToolsRepository } from '../helpers/broken-tools.js';
import { makeTempDir } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKENS = { operator: 'z11-broken-get-admin-token-0123456789', alice: 'z11-broken-get-alice-token-0123456789' } as const;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
let temp: { path: string; cleanup: () => Promise<void> };
let repo: Awaited<ReturnType<typeof brokenToolsRepository>>;
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-z11-broken-get-');
  repo = await brokenToolsRepository();
  const configFile = join(temp.path, 'config.yaml');
  await writeFile(configFile, `principals:\n  alice: { roles: [agent], tools: [shell-exec], token_sha256: ${digest(TOKENS.alice)} }\n`);
  server = await spawnService(
    ['serve', '--port', '0', '--config', configFile],
    { HLDP_REPO: repo.path, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.operator },
    / at (http:\/\/[\d.:]+)\n/,
  );
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await repo?.cleanup();
  await temp?.cleanup();
});

const get = async (who: keyof typeof TOKENS): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${server.url}/v1/tools/send-email`, { headers: { authorization: `Bearer ${TOKENS[who]}` } });
  return { status: response.status, text: await response.text() };
};

it('GET /v1/tools/:name of a broken tool tells alice nothing of its file or errors, as a call of it does', async () => {
  const alice = await get('alice');
  expect(alice.status).toBe(404);
  expect(alice.text).not.toMatch(/TOOL_BROKEN|diagnostics|tools\/send-email\/|TOOL\.hdlp/);
});

it('still tells the operator', async () => {
  const operator = await get('operator');
  expect(operator.status).toBe(409);
  expect(operator.text).toContain('tools/send-email/TOOL.hdlp');
});
