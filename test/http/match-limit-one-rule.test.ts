// Review U11-25: a match's `limit` was said three ways — POST /v1/match's schema (and the OpenAPI document) took 1-10,
// `hldp match --help` said 1-3, MCP tool_find's schema took 1-10, and the words' stage answered up to the limit while
// the other stages stopped at 3. Now one rule, the spec's 1-3 (L4-TOOL-003 §2 step 3), from one constant: every
// schema states it, and a limit outside it is refused in the same words on every surface — a 400 over HTTP, exit 2
// from the CLI, INVALID_PARAMS from tool_find — never cut. Over a real `hldp serve`, `hldp match` and `hldp mcp`.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { callTool, connectStdio } from '../mcp-front/support.js';

// what every surface says of a limit outside the range, but for how it names the field ('limit', --limit)
const RANGE = 'must be an integer from 1 to 3 (an intent is answered with its best 1 to 3 candidates)';
const INTENT = 'weather forecast for a city';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let repo: string;
let server: ServiceProcess;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  temp = await makeTempDir('hldp-match-limit-');
  repo = await initRepository(join(temp.path, 'repo'));
  // eight tools the request fits alike: more than any limit may ask for
  const files: Record<string, string> = {};
  for (let at = 0; at < 8; at++) files[`tools/weather-${at}/TOOL.hdlp`] = makeToolYaml(`weather-${at}`, { intent: `get the weather forecast for a city, variant ${at}` });
  await commitFiles(repo, files);
  env = { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  server = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

const names = (answer: { candidates?: Array<{ name: string }> }): string[] => (answer.candidates ?? []).map((candidate) => candidate.name);

describe('the limit of a match', () => {
  describe('over HTTP (hldp serve)', () => {
    it.each([
      ['/v1/match', 0],
      ['/v1/match', 4],
      ['/v1/match', 11],
      ['/v1/match', 2.5],
      ['/v1/call', 4],
      ['/v1/call', 11],
    ])('refuses %s with limit %s: 400 naming the range 1 to 3', async (route, limit) => {
      const answer = await request(server, 'POST', route, { body: { intent: INTENT, limit }, headers: { prefer: 'wait=60' } });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.json).toEqual({ code: 'INVALID_REQUEST', error: `'limit' ${RANGE}, got ${limit}`, problems: [{ path: 'limit', message: `'limit' ${RANGE}, got ${limit}` }] });
    });

    it('answers limit 3 with at most 3 candidates, and no limit with as many', async () => {
      for (const body of [{ intent: INTENT, limit: 3 }, { intent: INTENT }]) {
        const answer = await request(server, 'POST', '/v1/match', { body, headers: { prefer: 'wait=60' } });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.json).toMatchObject({ found: true });
        expect(names(answer.json).length).toBeGreaterThanOrEqual(1);
        expect(names(answer.json).length).toBeLessThanOrEqual(3);
      }
      const one = await request(server, 'POST', '/v1/match', { body: { intent: INTENT, limit: 1 }, headers: { prefer: 'wait=60' } });
      expect(names(one.json)).toHaveLength(1);
    });

    it('publishes the same range in the OpenAPI document', async () => {
      const document = (await request(server, 'GET', '/v1/openapi.json')).json as { components: { schemas: Record<string, { properties: { limit: unknown } }> } };
      for (const schema of ['MatchRequest', 'CallRequest']) {
        expect(document.components.schemas[schema]!.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 3, default: 3 });
      }
    });
  });

  describe('from the command line (hldp match)', () => {
    it.each([['4', '4'], ['0', '0'], ['ten', '"ten"']])('exits 2 on --limit %s, in the words the HTTP API answers with', async (limit, shown) => {
      const run = await runCli(['match', INTENT, '--limit', limit, '--repo', repo], { env: { ...env, HLDP_REPO: '' } });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`--limit ${RANGE}, got ${shown}`);
      expect(run.stdout).toBe('');
    });

    it('answers --limit 3 with at most 3 candidates, and its --help states the same range', async () => {
      const run = await runCli(['match', INTENT, '--limit', '3', '--json', '--repo', repo], { env: { ...env, HLDP_REPO: '' } });
      expect(run.code, run.stderr).toBe(0);
      const answer = JSON.parse(run.stdout) as { candidates: Array<{ name: string }> };
      expect(names(answer).length).toBeGreaterThanOrEqual(1);
      expect(names(answer).length).toBeLessThanOrEqual(3);
      const help = await runCli(['match', '--help']);
      expect(help.stdout + help.stderr).toContain('at most N candidates, an integer from 1 to 3 (default 3)');
    });
  });

  describe('over MCP (hldp mcp, tool_find)', () => {
    it('refuses limit 4 and 11 with INVALID_PARAMS naming the range, answers 3 with at most 3, and lists the range in its schema', async () => {
      const { client, close } = await connectStdio(repo);
      try {
        const listed = await client.listTools();
        const find = listed.tools.find((tool) => tool.name === 'tool_find')!;
        expect((find.inputSchema.properties as Record<string, unknown>)['limit']).toMatchObject({ type: 'integer', minimum: 1, maximum: 3, default: 3 });
        for (const limit of [4, 11]) {
          const refused = await callTool(client, 'tool_find', { intent: INTENT, limit });
          expect(refused.isError).toBe(true);
          expect(refused.structuredContent).toMatchObject({ code: 'INVALID_PARAMS', error: expect.stringContaining(`'limit' ${RANGE}, got ${limit}`) });
        }
        const answered = await callTool(client, 'tool_find', { intent: INTENT, limit: 3 });
        expect(answered.isError, JSON.stringify(answered.structuredContent)).toBeFalsy();
        const found = answered.structuredContent as { found: boolean; candidates?: Array<{ name: string }> };
        expect(found.found).toBe(true);
        expect(names(found).length).toBeGreaterThanOrEqual(1);
        expect(names(found).length).toBeLessThanOrEqual(3);
      } finally {
        await close();
      }
    });
  });
});
