import { describe, expect, it } from 'vitest';
import { commitFiles, makeToolYaml } from '../helpers/git.js';
import { describeWithPostgres } from '../helpers/postgres-suite.js';
import { get, post, useTwoInstances } from './support.js';

// A manual rescan moved only the instance it reached: the others served the previous commit (its tools, its policies)
// until their next poll, never with the poll off, while the answer said the new commit was served (review L, L2).
describeWithPostgres('POST /v1/scan at one of two hldp serve processes on one PostgreSQL database', () => {
  const pair = useTwoInstances();

  describe('when a commit adds a tool and an operator rescans instance A by hand', () => {
    it('makes instance B, which polls nothing, serve the new commit too', { timeout: 60_000 }, async () => {
      expect((await get(pair.b.url, '/v1/tools/fresh')).status).toBe(404);
      const commit = await commitFiles(pair.world.repo, { 'tools/fresh/TOOL.hdlp': makeToolYaml('fresh', { executor: 'hldp-api', method: 'get', http: '{ method: GET, path: "/echo/fresh" }' }) });
      expect((await post(pair.a.url, '/v1/scan', {})).json).toMatchObject({ commit, changed: true });
      // B learns of the rescan only through A: its poll is off
      await expect.poll(async () => (await get(pair.b.url, '/healthz')).json.commit, { timeout: 20_000, interval: 50 }).toBe(commit);
      expect((await post(pair.b.url, '/v1/call', { tool: 'fresh', params: {} })).json).toMatchObject({ ok: true, output: 'fresh', commit });
    });
  });
});
