// Agent sessions kept in the shared store (issue #13, sessions.store): a session opened at one real `hldp serve`
// process is served by another with its active toolsets, deadlines and turn scope, over HTTP and over MCP.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { makeWorld, startInstance, WEBHOOK_SECRET, type ScaleWorld } from './support.js';

// `talk` holds the echo tool, `quiet` the confirmed shell tool: enabling one changes what a session lists
const TOOLSETS = {
  'toolsets/talk/TOOLSET.hdlp': 'name: talk\ndescription: say things back\ntools: [echo]\nhint: echo answers with its word\nauthor: TEST-001\nwhy: shared sessions test\n',
  'toolsets/quiet/TOOLSET.hdlp': 'name: quiet\ndescription: runs that leave a trace\ntools: [once]\nauthor: TEST-001\nwhy: shared sessions test\n',
  // six more sets, for enabling many at once at both instances
  ...Object.fromEntries(['s1', 's2', 's3', 's4', 's5', 's6'].map((name) => [`toolsets/${name}/TOOLSET.hdlp`, `name: ${name}\ndescription: set ${name}\ntools: [echo]\nauthor: TEST-001\nwhy: shared sessions test\n`])),
};

const SESSION = 'X-HLDP-Session';

async function request(url: string, path: string, options: { method?: string; session?: string; body?: unknown } = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.session ? { [SESSION]: options.session } : {}) },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: response.status, json: response.status === 204 ? undefined : await response.json() };
}

const listed = async (url: string, session: string): Promise<string[]> => ((await request(url, `/v1/sessions/${session}/tools`)).json.tools as Array<{ name: string }>).map((tool) => tool.name).filter((name) => name === 'echo' || name === 'once');

/** The HTTP scenario, at two instances `a` and `b` sharing a store. */
function httpScenario(instances: () => { a: ServiceProcess; b: ServiceProcess }): void {
  it('serves a session opened at A at B: a toolset enabled at B is active at A with the same deadline, a turn ended at A ends it at B', async () => {
    const { a, b } = instances();
    const opened = await request(a.url, '/v1/sessions', { body: { toolsets: ['quiet'] } });
    expect(opened.status).toBe(201);
    const id = opened.json.id as string;
    expect(await listed(b.url, id)).toEqual(['once']);

    const enabled = await request(b.url, '/v1/call', { session: id, body: { tool: 'toolset', params: { action: 'enable', name: 'talk' } } });
    expect(enabled).toMatchObject({ status: 200, json: { ok: true } });
    const atA = (await request(a.url, `/v1/sessions/${id}`)).json;
    const atB = (await request(b.url, `/v1/sessions/${id}`)).json;
    expect(atA.toolsets).toEqual(atB.toolsets);
    expect(atA.toolsets).toMatchObject([{ name: 'quiet', scope: 'session', expires_at: null }, { name: 'talk', scope: 'session', expires_at: expect.any(String) }]);
    expect(await listed(a.url, id)).toEqual(['echo', 'once']);
    expect((await request(a.url, `/v1/sessions/${id}/prompt?chars=4000`)).json.text).toMatch(/Active toolsets: quiet, talk/);

    // a call in the session at A runs the tool B's enable made visible
    const called = await request(a.url, '/v1/call', { session: id, body: { tool: 'echo', params: { word: 'shared' } } });
    expect(called).toMatchObject({ status: 200, json: { ok: true, output: 'shared' } });

    // a turn-scoped set enabled at A goes when B is told the turn ended
    await request(a.url, '/v1/call', { session: id, body: { tool: 'toolset', params: { action: 'disable', name: 'talk' } } });
    await request(a.url, '/v1/call', { session: id, body: { tool: 'toolset', params: { action: 'enable', name: 'talk', scope: 'turn' } } });
    expect((await request(b.url, `/v1/sessions/${id}`)).json.toolsets).toMatchObject([{ name: 'quiet' }, { name: 'talk', scope: 'turn' }]);
    const turn = await request(b.url, `/v1/sessions/${id}/turn`, { body: {} });
    expect(turn).toMatchObject({ status: 200, json: { changed: true } });
    expect(await listed(a.url, id)).toEqual(['once']);
    expect((await request(a.url, `/v1/sessions/${id}/tools/echo`)).json).toMatchObject({ state: 'reserved' });

    // ended at B: gone at A
    expect((await request(b.url, `/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await request(a.url, `/v1/sessions/${id}`)).json).toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('keeps every toolset enabled in one session at A and at B at the same moment (no change lost to a concurrent one)', async () => {
    const { a, b } = instances();
    const id = (await request(a.url, '/v1/sessions', { body: {} })).json.id as string;
    const names = ['s1', 's2', 's3', 's4', 's5', 's6'];
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(names.map((name, index) => request(index % 2 ? b.url : a.url, '/v1/call', { session: id, body: { tool: 'toolset', params: { action: 'enable', name } } })));
      expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 200));
      for (const url of [a.url, b.url]) expect(((await request(url, `/v1/sessions/${id}`)).json.toolsets as Array<{ name: string }>).map((toolset) => toolset.name).sort()).toEqual(names);
      // and all disabled at once: none left behind
      await Promise.all(names.map((name, index) => request(index % 2 ? a.url : b.url, '/v1/call', { session: id, body: { tool: 'toolset', params: { action: 'disable', name } } })));
      expect((await request(b.url, `/v1/sessions/${id}`)).json.toolsets).toEqual([]);
    }
  });
}

describeWithPostgres('agent sessions in PostgreSQL, served by two hldp serve processes', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let a: ServiceProcess;
  let b: ServiceProcess;
  let memory: ServiceProcess | undefined;

  beforeAll(async () => {
    world = await makeWorld();
    await commitFiles(world.repo, TOOLSETS);
    database = await createTestDatabase();
    // no sessions.store in the config: PostgreSQL keeps them shared by default
    [a, b] = await Promise.all([startInstance(world, database.url), startInstance(world, database.url)]);
  });
  afterAll(async () => {
    await Promise.allSettled([a, b, memory].filter((instance) => instance !== undefined).map((instance) => instance.stop()));
    await database?.drop();
    await world?.cleanup();
  });

  describe('when an HTTP session moves between the instances', () => {
    httpScenario(() => ({ a, b }));
  });

  describe("when an MCP client's requests alternate between the instances", () => {
    it('keeps its agent session: a toolset enabled through one instance is listed by the other, and the client ending it ends it everywhere', async () => {
      let turn = 0;
      const alternating: typeof fetch = (input, init) => {
        const target = turn++ % 2 ? b : a;
        const url = new URL(input instanceof Request ? input.url : String(input));
        return fetch(`${target.url}${url.pathname}${url.search}`, init);
      };
      const client = new Client({ name: 'alternating-client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp?toolsets=quiet`), { fetch: alternating });
      await client.connect(transport);
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name === 'echo' || name === 'once');
      try {
        expect(await names()).toEqual(['once']);
        expect(await names()).toEqual(['once']);
        const enabled = await client.callTool({ name: 'toolset', arguments: { action: 'enable', name: 'talk' } });
        expect(enabled.isError).toBeFalsy();
        // the next two requests land at one instance each
        expect(await names()).toEqual(['echo', 'once']);
        expect(await names()).toEqual(['echo', 'once']);
        expect(await client.callTool({ name: 'echo', arguments: { word: 'across' } })).toMatchObject({ content: [{ type: 'text', text: 'across' }] });
        // the agent session is the connection's, under its id, at both instances
        const id = transport.sessionId!;
        expect((await request(a.url, `/v1/sessions/${id}`)).json.toolsets).toMatchObject([{ name: 'quiet' }, { name: 'talk' }]);
      } finally {
        await transport.terminateSession();
        await client.close();
      }
      expect((await request(b.url, `/v1/sessions/${transport.sessionId}`)).json).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    });
  });

  describe('when an instance is configured with sessions.store: memory', () => {
    it('does not know the sessions the shared store holds', async () => {
      memory = await startInstance(world, database.url, { config: 'sessions:\n  store: memory\n' });
      const opened = await request(a.url, '/v1/sessions', { body: {} });
      expect((await request(b.url, `/v1/sessions/${opened.json.id}`)).status).toBe(200);
      expect((await request(memory.url, `/v1/sessions/${opened.json.id}`)).json).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    });
  });
});

describe('agent sessions in one SQLite file, served by two hldp serve processes with sessions.store: shared', () => {
  let world: ScaleWorld;
  let a: ServiceProcess;
  let b: ServiceProcess;

  const start = (name: string): Promise<ServiceProcess> => {
    const own = join(world.folder, name);
    return spawnService(
      ['serve', '--port', '0', '--config', join(world.folder, 'shared-sessions.yaml')],
      {
        HLDP_REPO: world.repo, HLDP_RECEIPTS_DB: join(world.folder, 'shared.sqlite'), HLDP_WORKSPACE: world.workspace, HLDP_API_DEFAULT_URL: world.echoUrl,
        HLDP_CACHE_DIR: join(own, 'cache'), HLDP_DATA_DIR: join(own, 'data'), HLDP_WEBHOOK_SECRET: WEBHOOK_SECRET, HLDP_POLL_INTERVAL_MS: '0', HLDP_LOG_LEVEL: 'warn',
        // this file's processes use the SQLite file, whatever the environment says
        HLDP_STORE_URL: '',
      },
      / at (http:\/\/[\d.:]+)\n/,
    );
  };

  beforeAll(async () => {
    world = await makeWorld();
    await commitFiles(world.repo, TOOLSETS);
    await import('node:fs/promises').then(({ writeFile }) => writeFile(join(world.folder, 'shared-sessions.yaml'), 'sessions:\n  store: shared\n'));
    a = await start('sqlite-a');
    b = await start('sqlite-b');
  });
  afterAll(async () => {
    await Promise.allSettled([a, b].filter(Boolean).map((instance) => instance.stop()));
    await world?.cleanup();
  });

  httpScenario(() => ({ a, b }));
});
