import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { makeWorld, startInstance, type ScaleWorld } from '../scale/support.js';

const TOKEN = 'nul-admin-token-0123456789abcdef';

// PostgreSQL's text refuses U+0000: an agent's refused call naming a tool or an unknown param with one left no record
// (review L, L6).
describeWithPostgres('hldp serve on PostgreSQL, refused calls whose text holds U+0000', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let instance: ServiceProcess;

  beforeAll(async () => {
    world = await makeWorld();
    database = await createTestDatabase();
    instance = await startInstance(world, database.url, { config: `api_token: ${TOKEN}\n` });
  });
  afterAll(async () => {
    await instance?.stop();
    await database?.drop();
    await world?.cleanup();
  });

  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${instance.url}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, json: (await response.json()) as any };
  };

  describe('when an unknown tool name and an unknown param key hold it', () => {
    it('records both refusals, the character shown as its escape', { timeout: 60_000 }, async () => {
      expect((await send('POST', '/v1/call', { tool: 'a\u0000b' })).status).toBe(404);
      expect((await send('POST', '/v1/call', { tool: 'echo', params: { word: 'x', 'k\u0000': 1 } })).status).toBe(422);
      await expect
        .poll(async () => ((await send('GET', '/v1/rejections')).json.rejections ?? []).map((record: { tool: string; code: string }) => [record.tool, record.code]), { timeout: 10_000, interval: 100 })
        .toEqual(expect.arrayContaining([['a\\u0000b', 'TOOL_NOT_FOUND'], ['echo', 'INVALID_PARAMS']]));
      const records = (await send('GET', '/v1/rejections?tool=echo')).json.rejections;
      expect(records[0].reason).toContain('k\\u0000');
      expect((await send('GET', `/v1/rejections?tool=${encodeURIComponent('a\u0000b')}`)).json.rejections).toHaveLength(1);
      expect(instance.stderr()).not.toMatch(/could not record a rejected call/);
    });
  });
});
