import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RescanScheduler } from '../../src/gateway/http/index.js';
import { Gateway, type RescanResult } from '../../src/gateway/service/index.js';
import { makeTestConfig } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';

let temp: { path: string; cleanup: () => Promise<void> };
let gateway: Gateway;
let cleanupConfig: () => Promise<void>;
const scans: Array<RescanResult | { error: Error }> = [];

beforeEach(async () => {
  temp = await makeTempDir();
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/a/TOOL.hdlp': makeToolYaml('a') });
  const made = await makeTestConfig(repo);
  cleanupConfig = made.cleanup;
  scans.length = 0;
  gateway = await Gateway.open({ config: made.config, observer: { scanned: (result) => scans.push(result) } });
});
afterEach(async () => {
  await gateway.close();
  await cleanupConfig();
  await temp.cleanup();
});

describe('RescanScheduler', () => {
  describe('when rescans are requested while one runs', () => {
    it('merges them into one more rescan after it, which sees the newest commit', async () => {
      const scheduler = new RescanScheduler(gateway, pino({ level: 'silent' }));
      const newest = await commitFiles(join(temp.path, 'repo'), { 'tools/b/TOOL.hdlp': makeToolYaml('b') });
      scheduler.request('first');
      // three more requests while the first rescan runs (it has only just started): one more rescan, not three
      scheduler.request('second');
      scheduler.request('third');
      scheduler.request('fourth');
      await scheduler.idle();
      expect(scans).toHaveLength(2);
      expect(gateway.registry.index.commit).toBe(newest);
      expect([...gateway.tools()].map((tool) => tool.name)).toEqual(['a', 'b']);
    });
  });

  describe('when a rescan fails', () => {
    it('keeps the last good index, and the next request scans again', async () => {
      const scheduler = new RescanScheduler(gateway, pino({ level: 'silent' }));
      const { rm } = await import('node:fs/promises');
      await rm(join(temp.path, 'repo'), { recursive: true, force: true });
      scheduler.request('gone');
      await scheduler.idle();
      expect(scans.at(-1)).toHaveProperty('error');
      expect(gateway.scanError?.message).toBeTruthy();
      expect([...gateway.tools()].map((tool) => tool.name)).toEqual(['a']);
      await scheduler.stop();
    });
  });
});
