// Review Z12, Z12-8. Every 5 s each `hldp serve` renews its row in the store's roll of live instances. On SQLite the
// renewal was a write transaction on the event loop, waiting up to the store's busy timeout (5 s) while another process
// held the write lock (a retention prune, a migration, an operator's sqlite3 shell): an idle gateway answered no
// request for 5 s of every 5 s while the lock was held, and each failed beat was logged every 5 s as "could not expire
// approval requests". A beat now leaves the renewal to the next one when the store is locked, and says so once.
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect, it } from 'vitest';
import { startPolicyGateway } from '../policy/support.js';

// a line of the gateway's log about a beat that met the lock, on main ("could not expire approval requests") or now
const BEAT_MET_LOCK = /database is locked|locked by another process/;

it('answers /healthz while another process holds the SQLite write lock across several beats, and warns of it once, in its own words', { timeout: 240_000 }, async () => {
  const gateway = await startPolicyGateway({}, { logLevel: 'debug' });
  const holder = new BetterSqlite3(join(gateway.folder, 'data', 'receipts.db'));
  try {
    // what the test has seen, in the order it saw it: each /healthz answered, and each beat that met the lock
    const seen: Array<'answer' | 'beat'> = [];
    let beats = 0;
    const lineCount = (): number => gateway.service.stderr().split('\n').filter((line) => BEAT_MET_LOCK.test(line)).length;
    holder.prepare('BEGIN IMMEDIATE').run();
    // five beats met the lock (about 25 s): /healthz asked one after another meanwhile, each answer in order with them
    for (const end = Date.now() + 180_000; beats < 5 && Date.now() < end; ) {
      const answer = await fetch(`${gateway.url}/healthz`);
      expect(answer.status).toBe(200);
      await answer.body?.cancel();
      const now = lineCount();
      for (; beats < now; beats += 1) seen.push('beat');
      seen.push('answer');
    }
    expect(beats).toBeGreaterThanOrEqual(5);
    // between two beats that met the lock the loop is free: more than the one answer that slipped between two waits
    // of 5 s each (what a beat waiting on the lock left on the event loop)
    const between = seen.join(' ').split('beat').slice(1, -1).map((part) => part.split('answer').length - 1);
    expect(Math.max(...between), `/healthz answers between consecutive beats that met the lock: ${between.join(', ')}`).toBeGreaterThanOrEqual(2);
    // said once, as what it is, not as the expiry sweep's failure every 5 s
    const lines = gateway.service.stderr().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string; err?: string });
    expect(lines.filter((line) => line.msg.includes('could not expire approval requests'))).toEqual([]);
    const warned = lines.filter((line) => line.level === 40 && line.msg.includes("could not renew this instance's row in the store's roll of live instances"));
    expect(warned).toHaveLength(1);
    expect(warned[0]!.err).toContain('locked by another process');
  } finally {
    if (holder.inTransaction) holder.prepare('ROLLBACK').run();
    holder.close();
    await gateway.stop();
  }
});
