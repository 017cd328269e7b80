import { beforeEach, describe, expect, it } from 'vitest';
import type { RunPlace } from '../../src/store/index.js';
import { runsHere, storeKinds, useStore } from './backends.js';

const PLACE: RunPlace = { workspace: '/srv/ws', sandbox: 'auto', run_as: null, hide: [], ceiling: null, max_call_timeout_ms: 300_000, runs_with: { 'mcp_servers:files': 'ab12' } };

describe.each(storeKinds())('$name roll of live instances (review userZ6 F10)', (kind) => {
  if (!runsHere(kind)) return;
  let now = Date.parse('2026-12-01T10:00:00Z');
  beforeEach(() => {
    now = Date.parse('2026-12-01T10:00:00Z');
  });
  const db = useStore(kind, { now: () => now });

  it('shows every store over the database the instances that beat lately, each with its place, and not one that left or went quiet', async () => {
    const other = await db.backend.open({ now: () => now });
    try {
      await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, now - 600_000);
      await other.instances.beat('host-b pid 2 (instance b)', { ...PLACE, workspace: '/srv/other' }, now - 600_000);
      expect(await other.instances.live(now - 30_000)).toEqual([
        { by: 'host-a pid 1 (instance a)', place: PLACE, seen_ms: now },
        { by: 'host-b pid 2 (instance b)', place: { ...PLACE, workspace: '/srv/other' }, seen_ms: now },
      ]);
      // a renewed row keeps one row per instance
      now += 5_000;
      await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, now - 600_000);
      expect((await other.instances.live(now - 30_000)).map((row) => [row.by, row.seen_ms])).toEqual([['host-a pid 1 (instance a)', now], ['host-b pid 2 (instance b)', now - 5_000]]);
      // b stops: its row goes at once; a is killed: its row is not live once not renewed for 30 s
      await other.instances.leave('host-b pid 2 (instance b)');
      expect((await db.store.instances.live(now - 30_000)).map((row) => row.by)).toEqual(['host-a pid 1 (instance a)']);
      now += 31_000;
      expect(await db.store.instances.live(now - 30_000)).toEqual([]);
      // and a beat long after removes it from the table
      now += 600_000;
      await other.instances.beat('host-c pid 3 (instance c)', PLACE, now - 600_000);
      expect((await db.store.instances.live(0)).map((row) => row.by)).toEqual(['host-c pid 3 (instance c)']);
    } finally {
      await other.close();
    }
  });
});
