// Issue #11: the vector stage's candidates pass through the same visibility as the words' (`SessionManager.find`,
// what POST /v1/match and MCP tool_find answer through): a tool the caller may not use is never offered, and a broken
// tool, which is not served, is never a candidate. Over a real `hldp serve` and a real git repository.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { meaningToolFiles, STORM, TOPICAL_TOOLS } from '../helpers/meaning-tools.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKENS = { operator: 'vector-stage-admin-token-0123456789', alice: 'vector-stage-alice-token-0123456789', dev: 'vector-stage-dev-token-0123456789' } as const;
type Who = keyof typeof TOKENS;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
// alice may use every tool but the weather one
const ALICE_TOOLS = Object.keys(TOPICAL_TOOLS).filter((name) => name !== 'city-weather');

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-vector-stage-http-');
  const repo = await initRepository(join(temp.path, 'repo'));
  // a broken definition whose folder name fits the request: named to whom may be told, never offered
  await commitFiles(repo, { ...meaningToolFiles(TOPICAL_TOOLS), 'tools/storm-warning/TOOL.hdlp': 'name: storm-warning\nintent: [warn of a storm\n' });
  const configFile = join(temp.path, 'config.yaml');
  await writeFile(configFile, `principals:
  alice: { roles: [agent], tools: [${ALICE_TOOLS.join(', ')}], token_sha256: ${digest(TOKENS.alice)} }
  dev: { roles: [agent], token_sha256: ${digest(TOKENS.dev)} }
`);
  server = await spawnService(
    ['serve', '--port', '0', '--config', configFile],
    { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.operator },
    / at (http:\/\/[\d.:]+)\n/,
  );
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

async function match(who: Who, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/v1/match`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS[who]}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

const names = (answer: Record<string, unknown>): string[] => ((answer.candidates as Array<{ name: string }> | undefined) ?? []).map((candidate) => candidate.name);

describe('POST /v1/match of a request that shares no word with its tool but is near it in meaning', () => {
  it('offers the tool, low and by stage "vector", to a caller who may use it', async () => {
    const answer = await match('dev', { intent: STORM });
    expect(answer).toMatchObject({ found: true, confidence: 'low', stage: 'vector' });
    expect(names(answer)[0]).toBe('city-weather');
    expect(names(answer)).not.toContain('storm-warning');
  }, 60_000);

  it('never offers it to a caller who may not use it, as the words\' candidates are filtered', async () => {
    const answer = await match('alice', { intent: STORM });
    expect(names(answer)).not.toContain('city-weather');
    expect(JSON.stringify(answer)).not.toMatch(/city-weather|storm-warning/);
    if (answer.found === true) {
      expect(answer).toMatchObject({ confidence: 'low', stage: 'vector' });
      for (const name of names(answer)) expect(ALICE_TOOLS).toContain(name);
    }
  }, 60_000);

  it('never offers the broken tool, which the operator is told of instead', async () => {
    const answer = await match('operator', { intent: STORM, limit: 3 });
    expect(answer).toMatchObject({ found: true, stage: 'vector', broken: [{ name: 'storm-warning' }] });
    expect(names(answer)).not.toContain('storm-warning');
  }, 60_000);
});
