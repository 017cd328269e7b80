// Review J F8: another principal's GET /v1/sessions/:id is answered 404, and must leave the session as it was — it
// marked the session used, keeping it from idling out and moving it first in its principal's recency order.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { makeTempDir } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKENS = { admin: 'session-probe-admin-token-0123456789', bot: 'session-probe-bot-token-0123456789', bot2: 'session-probe-bot2-token-0123456789' } as const;
type Who = keyof typeof TOKENS;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The sessions the admin's console lists, most recently used first: id and last used. */
async function consoleSessions(url: string, cookie: string): Promise<Array<{ id: string; lastUsed: string }>> {
  const text = await (await fetch(`${url}/console/sessions`, { headers: { cookie } })).text();
  return Array.from(text.matchAll(/<code>([0-9a-f-]{36})<\/code>[\s\S]*?data-label="Last used"><time datetime="([^"]+)"/g), (match) => ({ id: match[1]!, lastUsed: match[2]! }));
}

function probeScenario(store: 'memory' | 'shared', storeUrl: () => string | undefined): void {
  let temp: { path: string; cleanup: () => Promise<void> };
  let server: ServiceProcess;

  beforeAll(async () => {
    temp = await makeTempDir('hldp-session-probe-');
    const repo = await makeConsoleRepository(temp.path);
    const configFile = join(temp.path, 'config.yaml');
    await writeFile(configFile, `principals:
  bot: { roles: [agent], token_sha256: ${digest(TOKENS.bot)} }
  bot2: { roles: [agent], token_sha256: ${digest(TOKENS.bot2)} }
sessions: { store: ${store} }
`);
    const url = storeUrl();
    server = await spawnService(
      ['serve', '--port', '0', '--config', configFile],
      { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.admin, ...(url ? { HLDP_STORE_URL: url } : {}) },
      / at (http:\/\/[\d.:]+)\n/,
    );
  });
  afterAll(async () => {
    await server?.stop();
    await temp?.cleanup();
  });

  const api = (who: Who, path: string, method = 'GET') =>
    fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${TOKENS[who]}`, 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });

  it("answers another principal's look-up 404 and leaves the session's last use and place as they were", async () => {
    const older = (await (await api('bot', '/v1/sessions', 'POST')).json()) as { id: string };
    const newer = (await (await api('bot', '/v1/sessions', 'POST')).json()) as { id: string };
    const cookie = await signInToConsole(server.url, TOKENS.admin);
    const before = await consoleSessions(server.url, cookie);
    expect(before.map((session) => session.id)).toEqual([newer.id, older.id]);
    // let the clock pass the last use, so that a refresh would show as a later time
    const lastUsed = Date.parse(before[1]!.lastUsed);
    while (Date.now() <= lastUsed + 1) await new Promise((resolve) => setTimeout(resolve, 2));

    const probe = await api('bot2', `/v1/sessions/${older.id}`);
    expect(probe.status).toBe(404);
    expect(await probe.json()).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(await consoleSessions(server.url, cookie)).toEqual(before);

    // its owner's look-up is a use, and marks it so (the shared store writes a use at most every few seconds)
    if (store === 'shared') return;
    expect((await api('bot', `/v1/sessions/${older.id}`)).status).toBe(200);
    const after = await consoleSessions(server.url, cookie);
    expect(after.map((session) => session.id)).toEqual([older.id, newer.id]);
    expect(Date.parse(after[0]!.lastUsed)).toBeGreaterThan(lastUsed);
  });
}

describe("another principal's GET /v1/sessions/:id", () => {
  describe('when sessions are kept in memory (the default on SQLite)', () => {
    probeScenario('memory', () => undefined);
  });
});

describeWithPostgres("another principal's GET /v1/sessions/:id, sessions in PostgreSQL", () => {
  let database: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  describe('when sessions are kept in the shared store', () => {
    probeScenario('shared', () => database.url);
  });
});
