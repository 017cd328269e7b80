import postgres from 'postgres';
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

  // PostgreSQL checks no privilege for NOTIFY: any role that may connect spoke for an instance (review S, S5)
  describe('when a role of the database with no grant on anything sends a rescan on the instances\' channel', () => {
    it('moves neither instance, which each say once that they dropped it', { timeout: 60_000 }, async () => {
      const before = (await get(pair.b.url, '/healthz')).json.commit as string;
      const commit = await commitFiles(pair.world.repo, { 'tools/forged/TOOL.hdlp': makeToolYaml('forged', { executor: 'hldp-api', method: 'get', http: '{ method: GET, path: "/echo/forged" }' }) });
      const role = `hldp_reporter_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      await pair.sql.unsafe(`CREATE ROLE "${role}" LOGIN`);
      const reporter = postgres(pair.database.url.replace(/\/\/[^@]*@/, `//${role}@`), { max: 1, onnotice: () => undefined });
      try {
        await reporter`SELECT pg_notify('hldp_bus', json_build_object('topic', 'rescan', 'message', json_build_object('origin', 'x', 'reason', 'injected by a reporting role'))::text) FROM generate_series(1, 50)`;
        const said = (instance: typeof pair.a): number => instance.stderr().split('\n').filter((line) => line.includes("dropped a message on the instances' bus")).length;
        const moved = async (): Promise<boolean> => (await get(pair.b.url, '/healthz')).json.commit !== before || (await get(pair.a.url, '/healthz')).json.commit !== before;
        // an instance either drops the 50 (and says so) or rescans (the code before: B served the commit within a second)
        await expect.poll(async () => (await moved()) || (said(pair.a) > 0 && said(pair.b) > 0), { timeout: 20_000, interval: 50 }).toBe(true);
        expect(await moved()).toBe(false);
        expect([said(pair.a), said(pair.b)]).toEqual([1, 1]);
        // the instances still speak to each other: a rescan at A moves B
        expect((await post(pair.a.url, '/v1/scan', {})).json).toMatchObject({ commit, changed: true });
        await expect.poll(async () => (await get(pair.b.url, '/healthz')).json.commit, { timeout: 20_000, interval: 50 }).toBe(commit);
      } finally {
        await reporter.end();
        await pair.sql.unsafe(`DROP ROLE IF EXISTS "${role}"`);
      }
    });
  });
});
