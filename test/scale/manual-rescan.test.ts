import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, makeToolYaml } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { get, makeWorld, post, startInstance, type ScaleWorld } from './support.js';

// A manual rescan moved only the instance it reached: the others served the previous commit (its tools, its policies)
// until their next poll, never with the poll off, while the answer said the new commit was served (review L, L2).
describeWithPostgres('POST /v1/scan at one of two hldp serve processes on one PostgreSQL database', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let a: ServiceProcess;
  let b: ServiceProcess;

  beforeAll(async () => {
    world = await makeWorld();
    database = await createTestDatabase();
    [a, b] = await Promise.all([startInstance(world, database.url), startInstance(world, database.url)]);
  });
  afterAll(async () => {
    await Promise.allSettled([a, b].filter(Boolean).map((instance) => instance.stop()));
    await database?.drop();
    await world?.cleanup();
  });

  describe('when a commit adds a tool and an operator rescans instance A by hand', () => {
    it('makes instance B, which polls nothing, serve the new commit too', { timeout: 60_000 }, async () => {
      expect((await get(b.url, '/v1/tools/fresh')).status).toBe(404);
      const commit = await commitFiles(world.repo, { 'tools/fresh/TOOL.hdlp': makeToolYaml('fresh', { executor: 'hldp-api', method: 'get', http: '{ method: GET, path: "/echo/fresh" }' }) });
      expect((await post(a.url, '/v1/scan', {})).json).toMatchObject({ commit, changed: true });
      // B learns of the rescan only through A: its poll is off
      await expect.poll(async () => (await get(b.url, '/healthz')).json.commit, { timeout: 20_000, interval: 50 }).toBe(commit);
      expect((await post(b.url, '/v1/call', { tool: 'fresh', params: {} })).json).toMatchObject({ ok: true, output: 'fresh', commit });
    });
  });
});
