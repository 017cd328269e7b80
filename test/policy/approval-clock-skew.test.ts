// Review Z12, Z12-8. Two instances on one PostgreSQL store, on hosts whose clocks differ: B's runs 45 s ahead (no NTP,
// a VM resumed). Each wrote its row in the store's roll of live instances by its own clock, and B, reading A's rows
// as 45 s old, never counted A as serving: an approver at B was refused (409, "no gateway serving now runs request")
// for a request A filed and would run. The roll's times are now the database's, and a filer not seen is not taken
// for gone unless its row was seen to leave: B records the approval, and A runs the call.
// fc25: the test then failed under load with a CANCELLED receipt ("interrupted"): A leased the run until its clock's
// now + 30 s, and B's sweep (each second) read that lease by its own clock, 45 s ahead, as lapsed, and closed the
// request while A ran it — whenever A's run spanned one of B's sweeps, which a loaded machine made likely. The run
// now lasts 3 s (three of B's sweeps), and the approvals' times are the database's clock on PostgreSQL.
// lead20: the store judged by the database's clock, but the approval desk still read a request's expiry by B's: a
// request with 40 s to run was "expired" to an approver at B (APPROVAL_EXPIRED, "nothing ran: call the tool again"),
// while the store, by its clock, left it pending. The request here expires in 40 s, which B's own clock has passed.
// lead21: the database's clock was read once at open and the store's time was B's wall clock plus that offset, so a
// host clock stepped after B started (NTP, a VM resumed) moved the store's time with it: B, in step at its start and
// 45 s ahead since, refused the same approval as expired. The store's time now runs on the monotonic clock.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { api, heldShowText, receiptOf } from './support.js';

// loaded by B's node before anything else: its host's clock, 45 s ahead of A's (and the database's)
const AHEAD = `const ahead = 45_000;
const RealDate = Date;
class AheadDate extends RealDate {
  constructor(...args) { if (args.length === 0) super(RealDate.now() + ahead); else super(...args); }
  static now() { return RealDate.now() + ahead; }
}
globalThis.Date = AheadDate;
`;

// loaded by B's node: its host's clock in step until the file STEP names appears, then 45 s ahead (a step after the open)
const STEPPED = `import { existsSync } from 'node:fs';
let ahead = 0;
const RealDate = Date;
const watch = setInterval(() => { if (existsSync(process.env.STEP)) { ahead = 45_000; clearInterval(watch); } }, 50);
watch.unref();
class SteppedDate extends RealDate {
  constructor(...args) { if (args.length === 0) super(RealDate.now() + ahead); else super(...args); }
  static now() { return RealDate.now() + ahead; }
}
globalThis.Date = SteppedDate;
`;

describeWithPostgres('an approval at an instance whose host\'s clock runs 45 s ahead of the filer\'s, one PostgreSQL store (review Z12, Z12-8)', () => {
  const stops: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 90_000);

  it('is recorded (202) and runs at the filer, which serves: not refused as "no gateway serving now runs request"', { timeout: 300_000 }, async () => {
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    // B has another setting: a request filed at A runs at A, not at B
    // a run that spans several of B's sweeps: each would read A's lease, as B's clock reads it, and close a lapsed one
    const { temp, before, after, serve } = await heldShowText({ pause: 3, expiresInMs: 40_000 });
    stops.push(() => temp.cleanup());
    const clock = join(temp.path, 'clock-ahead.mjs');
    await writeFile(clock, AHEAD);
    const store = { HLDP_STORE_URL: database.url };
    // one after another: the first sets the store up
    const a = await serve({ name: 'a', config: before, store });
    stops.push(() => a.stop());
    const b = await serve({ name: 'b', config: after, store, node: ['--import', clock] });
    stops.push(() => b.stop());

    const filed = await api(a.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'show-text', params: { text: 'across the skew' } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    const id = filed.body.id as string;

    const approved = await api(b.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    const { receipt } = await receiptOf(a.url, id);
    expect(receipt, `${receipt.code}: ${receipt.error}`).toMatchObject({ ok: true, output: 'across the skew\n', approval: { id, decided_by: 'alice' } });
    expect(b.stderr()).not.toContain('could not renew');
  });

  it('is recorded (202) and runs when B\'s clock was stepped 45 s ahead after B started: the store keeps the database\'s time', { timeout: 300_000 }, async () => {
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    const { temp, before, after, serve } = await heldShowText({ expiresInMs: 40_000 });
    stops.push(() => temp.cleanup());
    const clock = join(temp.path, 'clock-stepped.mjs');
    const step = join(temp.path, 'step-now');
    await writeFile(clock, STEPPED);
    const store = { HLDP_STORE_URL: database.url };
    const a = await serve({ name: 'a', config: before, store });
    stops.push(() => a.stop());
    const b = await serve({ name: 'b', config: after, store: { ...store, STEP: step }, node: ['--import', clock] });
    stops.push(() => b.stop());
    // B has started (its store read the database's clock in step): now its host's clock steps ahead
    await writeFile(step, '');
    await new Promise((resolve) => setTimeout(resolve, 500));

    const filed = await api(a.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'show-text', params: { text: 'after the step' } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    const id = filed.body.id as string;
    const approved = await api(b.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    const { receipt } = await receiptOf(a.url, id);
    expect(receipt, `${receipt.code}: ${receipt.error}`).toMatchObject({ ok: true, output: 'after the step\n', approval: { id, decided_by: 'alice' } });
  });
});
