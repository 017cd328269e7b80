// Review Z2, Z2-3: a match's `broken` field named a broken tool, its path and its first error to a principal who could
// not be offered that tool were it served (alice, with `tools: [shell-exec]`, asking for what `send-email` would do);
// calling it by name answered TOOL_BROKEN with its diagnostics to her too. The operator (an admin) is still told.
// Review userZ2, U2: hidden so, dev (an agent that may use every tool) was told, by a call of it and by a match it
// would fit, to "write its definition at tools/…/TOOL.hdlp": to write over the reviewed file, or a duplicate of it.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenToolsRepository, EMAIL_REQUEST } from '../helpers/broken-tools.js';
import { makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKENS = { operator: 'broken-access-admin-token-0123456789', alice: 'broken-access-alice-token-0123456789', dev: 'broken-access-dev-token-0123456789' } as const;
type Who = keyof typeof TOKENS;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

let temp: { path: string; cleanup: () => Promise<void> };
let repo: Awaited<ReturnType<typeof brokenToolsRepository>>;
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-broken-access-');
  repo = await brokenToolsRepository();
  const configFile = join(temp.path, 'config.yaml');
  await writeFile(configFile, `principals:
  alice: { roles: [agent], tools: [shell-exec], token_sha256: ${digest(TOKENS.alice)} }
  dev: { roles: [agent], token_sha256: ${digest(TOKENS.dev)} }
`);
  server = await spawnService(
    ['serve', '--port', '0', '--config', configFile],
    { HLDP_REPO: repo.path, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.operator },
    / at (http:\/\/[\d.:]+)\n/,
  );
});
afterAll(async () => {
  await server?.stop();
  await repo?.cleanup();
  await temp?.cleanup();
});

async function post(who: Who, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS[who]}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

describe.each([
  ['/v1/match', { intent: EMAIL_REQUEST }],
  ['/v1/call', { intent: EMAIL_REQUEST, context: {} }],
])('POST %s of an intent a broken tool would fit', (route, body) => {
  it.each(['alice', 'dev'] as const)('never names the broken tool, its file or its error to %s, who may not be told of it', async (who) => {
    const answer = await post(who, route, body);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ found: false });
    expect(answer.json).not.toHaveProperty('broken');
    expect(answer.text).not.toMatch(/'send-email'|tools\/send-email\/|TOOL\.hdlp:\d/);
    expect(answer.text).not.toMatch(/write|TOOL\.hdlp/);
    expect(answer.json.suggestion).toMatch(/no tool you may use fits; .*ask a person/);
  });

  it('still names it, with a suggestion to fix it, to the operator', async () => {
    const answer = await post('operator', route, body);
    expect(answer.json).toMatchObject({ found: false, broken: [{ name: 'send-email', path: 'tools/send-email/TOOL.hdlp' }] });
    expect(answer.json.suggestion).toMatch(/^the tool 'send-email' at tools\/send-email\/TOOL\.hdlp would fit, but its definition is broken/);
  });
});

describe('a call of the broken tool by name', () => {
  it.each(['alice', 'dev'] as const)('is answered to %s as an unknown name: no diagnostics, and no advice to write it', async (who) => {
    const called = await post(who, '/v1/call', { tool: 'send-email', params: {} });
    expect(called.status).toBe(404);
    expect(called.json).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    expect(called.json).not.toHaveProperty('diagnostics');
    expect(called.text).not.toMatch(/TOOL\.hdlp:\d|broken/);
    expect(called.text).not.toMatch(/write|TOOL\.hdlp|tools\/send-email/);
    expect(called.json.suggestion).toMatch(/^no tool you may use is named 'send-email'; .*ask a person/);
  });

  it('is answered TOOL_BROKEN with its diagnostics to the operator', async () => {
    const called = await post('operator', '/v1/call', { tool: 'send-email', params: {} });
    expect(called.status).toBe(409);
    expect(called.json).toMatchObject({ code: 'TOOL_BROKEN', diagnostics: [expect.objectContaining({ file: 'tools/send-email/TOOL.hdlp' })] });
  });
});

describe("alice's session (the meta-tools, as over MCP)", () => {
  async function inSession(who: Who, tool: string, params: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
    const opened = await post(who, '/v1/sessions', {});
    const id = opened.json.id as string;
    const response = await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS[who]}`, 'content-type': 'application/json', 'x-hldp-session': id }, body: JSON.stringify({ tool, params }) });
    const text = await response.text();
    return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, text };
  }

  it('tool_find names no broken tool to alice, and does to the operator', async () => {
    expect((await inSession('alice', 'tool_find', { intent: EMAIL_REQUEST })).text).not.toMatch(/'send-email'|tools\/send-email\/|TOOL\.hdlp:\d/);
    expect((await inSession('operator', 'tool_find', { intent: EMAIL_REQUEST })).text).toContain('tools/send-email/TOOL.hdlp');
  });

  it.each(['alice', 'dev'] as const)('tool_call of the broken tool, and calling it directly in a session, tell %s neither its file nor to write it', async (who) => {
    for (const called of [await inSession(who, 'tool_call', { name: 'send-email', params: {} }), await inSession(who, 'send-email', {})]) {
      expect(called.text).toContain('TOOL_NOT_FOUND');
      expect(called.text).not.toMatch(/TOOL_BROKEN|TOOL\.hdlp|write|tools\/send-email/);
      expect(called.text).toContain("no tool you may use is named 'send-email'");
    }
  });

  it('tool_load of the broken tool answers alice as for a name never written, and the operator TOOL_BROKEN', async () => {
    const alice = await inSession('alice', 'tool_load', { name: 'send-email' });
    expect(alice.text).toContain('TOOL_NOT_FOUND');
    expect(alice.text).not.toMatch(/TOOL\.hdlp:\d|TOOL_BROKEN/);
    expect((await inSession('operator', 'tool_load', { name: 'send-email' })).text).toContain('TOOL_BROKEN');
  });
});

describe('sessions.deny, for the operator', () => {
  it.each([
    ['names the broken tool', 'send-email'],
    ['names what may be its group (no served tool or alias)', 'mail'],
  ])('keeps the broken tool out of a match when the list %s', async (_how, entry) => {
    const config = join(temp.path, `deny-${entry}.yaml`);
    await writeFile(config, `sessions: { deny: [${entry}] }\n`);
    const denied = await startTestServer(repo.path, { HLDP_CONFIG: config });
    try {
      const answer = await request(denied, 'POST', '/v1/match', { body: { intent: EMAIL_REQUEST } });
      expect(answer.json).toMatchObject({ found: false });
      expect(answer.text).not.toMatch(/'send-email'|tools\/send-email\//);
    } finally {
      await denied.cleanup();
    }
  });

  it('leaves it named when the list names only served tools', async () => {
    const config = join(temp.path, 'deny-served.yaml');
    await writeFile(config, 'sessions: { deny: [shell-exec] }\n');
    const denied = await startTestServer(repo.path, { HLDP_CONFIG: config });
    try {
      const answer = await request(denied, 'POST', '/v1/match', { body: { intent: EMAIL_REQUEST } });
      expect(answer.json).toMatchObject({ found: false, broken: [{ name: 'send-email' }] });
    } finally {
      await denied.cleanup();
    }
  });
});
