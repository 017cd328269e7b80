// Review userZ11, U11-7: `hldp match` and `hldp export` ignored HLDP_TOKEN, though their help says the CLI acts as
// its principal: an agent whose principal may not call `deploy` was told `found: true, confidence: high` for it, and
// `export` listed it. They now answer as POST /v1/match and a fresh session's GET /v1/sessions/:id/tools answer the
// same principal over HTTP: a real repository, a config with principals (tokens from the environment, as the README
// shows), real `hldp` processes, and a real server on 127.0.0.1 over the same repository and config.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';

const BOT = 'bot-token-0123456789abcdef';
const LEAD = 'lead-token-0123456789abcdef';
const TOKENS = { HLDP_PRINCIPAL_BOT_TOKEN: BOT, HLDP_PRINCIPAL_LEAD_TOKEN: LEAD };

const tool = (name: string, intent: string, extra = ''): string =>
  `name: ${name}\ndisplay: ${name}\nintent: ${intent}\nmethod: run\nexecutor: shell\nparams_schema: {}\nshell:\n  argv: [echo, ${name}]\n${extra}author: TEST-001\ncreated: 2026-12-07\nwhy: tests need ${name}\n`;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let repo: string;
let config: string;
let server: Awaited<ReturnType<typeof startTestServer>>;
let cliEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  temp = await makeTempDir('hldp-as-principal-');
  repo = join(temp.path, 'tools-repo');
  await initRepository(repo);
  await commitFiles(repo, {
    'tools/greet/TOOL.hdlp': tool('greet', 'say hello to a person by name'),
    // trusted principals only: forbidden to bot
    'tools/deploy/TOOL.hdlp': tool('deploy', 'deploy the service to production', 'access: { roles: [trusted] }\n'),
    // anyone may call it, once a person approves
    'tools/backup/TOOL.hdlp': tool('backup', 'back up the database to the archive'),
    'policies/ops.hdlp': 'name: ops\nauthor: TEST-001\nwhy: a person looks at every backup\napproval:\n  - tools: [backup]\n    decision: approve\n    reason: a backup needs a person\n',
  });
  config = join(temp.path, 'brush-holder.yaml');
  await writeFile(config, 'principals:\n  bot: { roles: [agent] }\n  lead: { roles: [agent, trusted] }\n');
  server = await startTestServer(repo, { HLDP_CONFIG: config, ...TOKENS });
  cliEnv = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, ...TOKENS };
});
afterAll(async () => {
  await server?.cleanup();
  await temp?.cleanup();
});

const hldp = (args: string[], token?: string) => runCli([...args, '--repo', repo, '--config', config, '--json'], { env: { ...cliEnv, HLDP_TOKEN: token ?? '' }, cwd: temp.path });
const httpMatch = async (token: string, intent: string) => (await request(server, 'POST', '/v1/match', { headers: { authorization: `Bearer ${token}` }, body: { intent } })).json;
async function httpExport(token: string, format: string): Promise<{ tools: unknown[]; names: Record<string, string> }> {
  const headers = { authorization: `Bearer ${token}` };
  const opened = await request(server, 'POST', '/v1/sessions', { headers });
  expect(opened.status).toBe(201);
  const listed = await request(server, 'GET', `/v1/sessions/${opened.json.id as string}/tools?format=${format}`, { headers });
  expect(listed.status).toBe(200);
  return listed.json;
}

describe('hldp match as HLDP_TOKEN\'s principal', () => {
  it('does not offer a tool the principal may not call, and answers as POST /v1/match answers it', async () => {
    const intent = 'deploy the service to production';
    const run = await hldp(['match', intent], BOT);
    const answer = JSON.parse(run.stdout);
    expect(answer.found === false || !answer.candidates.some((candidate: { name: string }) => candidate.name === 'deploy')).toBe(true);
    expect(run.stdout).not.toContain('"deploy"');
    expect(answer).toEqual(await httpMatch(BOT, intent));
    expect(run.code).toBe(answer.found ? 0 : 1);
  });

  it('offers it to a principal that may call it, as the API does', async () => {
    const intent = 'deploy the service to production';
    const run = await hldp(['match', intent], LEAD);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ found: true, confidence: 'high', candidates: [{ name: 'deploy' }] });
    expect(answer).toEqual(await httpMatch(LEAD, intent));
  });

  it('shows a tool that needs approval as the API shows it', async () => {
    const intent = 'back up the database to the archive';
    const run = await hldp(['match', intent], BOT);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ found: true, candidates: [{ name: 'backup' }] });
    expect(answer).toEqual(await httpMatch(BOT, intent));
  });

  it('without HLDP_TOKEN answers as before: the operator, every tool', async () => {
    const run = await hldp(['match', 'deploy the service to production']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ found: true, confidence: 'high', candidates: [{ name: 'deploy' }] });
  });
});

describe('hldp export as HLDP_TOKEN\'s principal', () => {
  for (const format of ['openai', 'anthropic', 'mcp']) {
    it(`lists in ${format} what a fresh session of it lists over HTTP, the forbidden tool left out`, async () => {
      const run = await hldp(['export', '--format', format], BOT);
      expect(run.code).toBe(0);
      const exported = JSON.parse(run.stdout);
      expect(Object.values(exported.names).sort()).toEqual(['backup', 'greet']);
      const listed = await httpExport(BOT, format);
      expect(exported.tools).toEqual(listed.tools);
      expect(exported.names).toEqual(listed.names);
      expect(exported).toMatchObject({ format, meta_tools: { tool_find: expect.any(String) } });
    });
  }

  it('lists the tool to a principal that may call it', async () => {
    const run = await hldp(['export', '--format', 'openai'], LEAD);
    expect(run.code).toBe(0);
    const exported = JSON.parse(run.stdout);
    expect(Object.values(exported.names).sort()).toEqual(['backup', 'deploy', 'greet']);
    expect(exported.tools).toEqual((await httpExport(LEAD, 'openai')).tools);
  });

  it('without HLDP_TOKEN lists every tool, as before', async () => {
    const run = await hldp(['export', '--format', 'openai']);
    expect(run.code).toBe(0);
    expect(Object.values(JSON.parse(run.stdout).names).sort()).toEqual(['backup', 'deploy', 'greet']);
  });
});

describe('a token of no principal', () => {
  for (const args of [['match', 'deploy the service to production'], ['export', '--format', 'openai']]) {
    it(`stops hldp ${args[0]} with exit 2, saying so, as hldp call does`, async () => {
      const run = await hldp(args, 'no-such-token-0123456789abcdef');
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`hldp ${args[0]}: HLDP_TOKEN is not the token of any principal configured in ${config} (bot, lead): check the token.`);
    });
  }
});
