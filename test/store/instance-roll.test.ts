import BetterSqlite3 from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunPlace } from '../../src/store/index.js';
import { runsHere, storeKinds, useStore } from './backends.js';

const PLACE: RunPlace = { workspace: '/srv/ws', sandbox: 'auto', run_as: null, hide: [], ceiling: null, max_call_timeout_ms: 300_000, runs_with: { 'mcp_servers:files': 'ab12' } };
const KEPT_MS = 600_000;

describe.each(storeKinds())('$name roll of live instances (review userZ6 F10, Z12-8)', (kind) => {
  if (!runsHere(kind)) return;
  let now = Date.parse('2026-12-01T10:00:00Z');
  beforeEach(() => {
    now = Date.parse('2026-12-01T10:00:00Z');
  });
  const db = useStore(kind, { now: () => now });
  const names = (rows: Array<{ by: string; left: boolean }>): string[] => rows.map((row) => `${row.by}${row.left ? ' (left)' : ''}`);

  it('shows every store over the database the instances that beat, each with its place and how long it has been quiet, and marks one that left', async () => {
    const other = await db.backend.open({ now: () => now });
    try {
      await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, KEPT_MS);
      const read = await other.instances.beat('host-b pid 2 (instance b)', { ...PLACE, workspace: '/srv/other' }, KEPT_MS);
      expect(read.renewed).toBe(true);
      expect(read.rows.map(({ by, place, left }) => ({ by, place, left }))).toEqual([
        { by: 'host-a pid 1 (instance a)', place: PLACE, left: false },
        { by: 'host-b pid 2 (instance b)', place: { ...PLACE, workspace: '/srv/other' }, left: false },
      ]);
      // quiet_ms is the roll's own clock's (the database's on PostgreSQL): just written, a moment at most
      for (const row of read.rows) expect(row.quiet_ms).toBeLessThan(60_000);
      // b stops: its row is marked, not removed, so that a is told "b left", not "b not seen"
      await other.instances.leave('host-b pid 2 (instance b)');
      expect(names((await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, KEPT_MS)).rows)).toEqual(['host-a pid 1 (instance a)', 'host-b pid 2 (instance b) (left)']);
      // a row beaten again after it left (the same process serving again) is live again
      await other.instances.beat('host-b pid 2 (instance b)', PLACE, KEPT_MS);
      expect(names((await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, KEPT_MS)).rows)).toEqual(['host-a pid 1 (instance a)', 'host-b pid 2 (instance b)']);
    } finally {
      await other.close();
    }
  });

  it('removes a row quiet for longer than kept, by the roll\'s clock, whatever the beating instance\'s clock says', async () => {
    // a row written by an instance whose row has been quiet for 11 minutes, by the roll's clock
    await db.store.instances.beat('host-gone pid 9 (instance g)', PLACE, KEPT_MS);
    await db.backend.sql('UPDATE gateway_instances SET seen_ms = seen_ms - 660000');
    // an instance whose clock runs 10 minutes ahead removes nothing more on PostgreSQL, where the database's clock decides
    const fast = await db.backend.open({ now: () => now + (kind.name === 'PostgreSQL' ? 600_000 : 0) });
    try {
      await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, KEPT_MS);
      const rows = (await fast.instances.beat('host-fast pid 3 (instance f)', PLACE, KEPT_MS)).rows;
      expect(names(rows)).toEqual(['host-a pid 1 (instance a)', 'host-fast pid 3 (instance f)']);
      for (const row of rows) expect(row.quiet_ms).toBeLessThan(60_000);
    } finally {
      await fast.close();
    }
  });

  // review Z14, Z14-6: a request waits up to 7 days; once its stopped filer's row was removed, 10 minutes on, an approver
  // elsewhere was offered the approval as if the filer were only not seen yet. The row stays while a request it filed waits
  it('keeps the row of a process that stopped, past kept, while a request it filed is pending, and removes it once that request is decided', async () => {
    const filer = 'host-f pid 4 (instance f)';
    const fileBy = (by: string) =>
      db.store.approvals.create({
        caller: 'bot', session: null, tool: 'show-text', method: 'run', executor: 'shell', params: { text: 'hi' }, commit: 'c'.repeat(40),
        rule: { where: null, reason: 'a person looks first', self_approval: false, approvers: { roles: ['approver'] }, elicit: false, place: PLACE, filed_by: { by, url: 'http://127.0.0.1:1', roll: true } },
        ttlMs: 7 * 24 * 3600_000,
      });
    await db.store.instances.beat(filer, PLACE, KEPT_MS);
    await db.store.instances.beat('host-o pid 5 (instance o)', PLACE, KEPT_MS);
    const filed = await fileBy(filer);
    // a request of another process keeps no row but its filer's
    await fileBy('host-x pid 6 (instance x)');
    await db.store.instances.leave(filer);
    await db.store.instances.leave('host-o pid 5 (instance o)');
    // both quiet an hour, by the roll's clock
    await db.backend.sql('UPDATE gateway_instances SET seen_ms = seen_ms - 3600000');
    now += 3600_000;
    const kept = (await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, KEPT_MS)).rows;
    expect(names(kept)).toEqual(['host-a pid 1 (instance a)', `${filer} (left)`]);
    expect(kept.find((row) => row.by === filer)!.quiet_ms).toBeGreaterThan(KEPT_MS);
    await db.store.approvals.decide(filed.id, { status: 'denied', by: 'alice', reason: null, via: 'api' });
    expect(names((await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, KEPT_MS)).rows)).toEqual(['host-a pid 1 (instance a)']);
  });

  if (kind.name === 'SQLite') {
    it('reads the rows without renewing its own while another process holds the write lock, rather than wait for it on the event loop', async () => {
      await db.store.instances.beat('host-a pid 1 (instance a)', PLACE, KEPT_MS);
      const path = ((await db.backend.sql('PRAGMA database_list')) as Array<{ file: string }>)[0]!.file;
      const holder = new BetterSqlite3(path);
      try {
        holder.prepare('BEGIN IMMEDIATE').run();
        const read = await db.store.instances.beat('host-b pid 2 (instance b)', PLACE, KEPT_MS);
        expect(read).toMatchObject({ renewed: false });
        expect(names(read.rows)).toEqual(['host-a pid 1 (instance a)']);
        holder.prepare('ROLLBACK').run();
        expect(names((await db.store.instances.beat('host-b pid 2 (instance b)', PLACE, KEPT_MS)).rows)).toEqual(['host-a pid 1 (instance a)', 'host-b pid 2 (instance b)']);
      } finally {
        holder.close();
      }
    });
  }
});
