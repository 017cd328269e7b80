import { beforeEach, describe, expect, it } from 'vitest';
import { hashParams, type ApprovalRecord, type NewApproval, type Store } from '../../src/store/index.js';
import { runsHere, storeKinds, useStore } from './backends.js';

const request: NewApproval = {
  caller: 'bot', session: 'session-1', tool: 'file-write', method: 'write_file', executor: 'gatekeeper',
  params: { path: 'etc/notes.txt', content: 'hello', append: false }, commit: 'c'.repeat(40),
  rule: { where: 'policies/writes.hdlp:8:5', reason: 'a write outside agent/ needs a person', self_approval: false, approvers: { roles: ['approver'] }, elicit: false },
  ttlMs: 10 * 60_000,
};

describe.each(storeKinds())('$name approval store', (kind) => {
  if (!runsHere(kind)) return;
  let now = Date.parse('2026-05-31T10:00:00.000Z');
  beforeEach(() => {
    now = Date.parse('2026-05-31T10:00:00.000Z');
  });
  const db = useStore(kind, { now: () => now });
  const open = (): Promise<Store> => db.backend.open({ now: () => now });

  describe('when a request is created', () => {
    it('binds it to caller, session, tool, params digest, commit and expiry, pending', async () => {
      const created = await db.store.approvals.create(request);
      expect(created).toEqual({
        id: expect.stringMatching(/^apr_[A-Za-z0-9_-]{16}$/), status: 'pending', caller: 'bot', session: 'session-1',
        tool: 'file-write', method: 'write_file', executor: 'gatekeeper', params: request.params, params_hash: hashParams(request.params),
        commit: request.commit, rule: request.rule, timeout_ms: null,
        created_at: '2026-05-31T10:00:00.000Z', expires_at: '2026-05-31T10:10:00.000Z',
        decided_at: null, decided_by: null, decision_reason: null, decided_via: null, receipt_id: null, run: null,
      } satisfies ApprovalRecord);
      expect(await db.store.approvals.get(created.id)).toEqual(created);
    });

    it('keeps only a hash of a confirmation token, and finds the request by it', async () => {
      const created = await db.store.approvals.create({ ...request, tokenHash: 'a'.repeat(64) });
      expect(await db.store.approvals.byTokenHash('a'.repeat(64))).toEqual(created);
      expect(await db.store.approvals.byTokenHash('b'.repeat(64))).toBeUndefined();
    });
  });

  describe('when the same call is filed again while its request waits', () => {
    it('files one request of 20 identical filings from two stores at once, gives the others it with their token, and files anew once it is decided', async () => {
      const other = await open();
      const filings = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? other : db.store).approvals.file({ ...request, tokenHash: String(index).padStart(64, '0') })));
      const filed = filings.filter((filing) => filing.filed);
      expect(filed).toHaveLength(1);
      const { id } = filed[0]!.record;
      expect(filings.every((filing) => filing.record.id === id)).toBe(true);
      expect(await db.store.approvals.pendingCount('bot')).toBe(1);
      // the token is the last filing's: the one kept is one of the 20, and only that one finds the request
      const held = await db.store.approvals.repeated({ ...request, tokenHash: 'f'.repeat(64) });
      expect(held?.id).toBe(id);
      expect(await db.store.approvals.byTokenHash('f'.repeat(64))).toMatchObject({ id });
      expect(await db.store.approvals.byTokenHash('0'.repeat(64))).toBeUndefined();
      // another session, other params, another rule: other calls
      for (const call of [{ ...request, session: null }, { ...request, params: { ...request.params, content: 'bye' } }, { ...request, rule: { ...request.rule, where: 'policies/writes.hdlp:9:5' } }]) {
        expect((await db.store.approvals.file(call)).filed).toBe(true);
      }
      // create files whatever waits
      expect((await db.store.approvals.create(request)).id).not.toBe(id);
      await db.store.approvals.decide(id, { status: 'denied', by: 'alice', reason: null, via: 'api' });
      expect(await db.store.approvals.repeated(request)).toBeUndefined();
      const anew = await db.store.approvals.file(request);
      expect(anew).toMatchObject({ filed: true, record: { status: 'pending' } });
      expect(anew.record.id).not.toBe(id);
    });
  });

  describe('when requests wait for a decision', () => {
    it('counts the pending ones of every caller and tells how long the oldest has waited, leaving out expired and decided ones', async () => {
      expect(await db.store.approvals.waiting()).toEqual({ count: 0 });
      const oldest = await db.store.approvals.create({ ...request, ttlMs: 60_000 });
      now += 5_000;
      await db.store.approvals.create({ ...request, caller: 'other-bot' });
      const decided = await db.store.approvals.create(request);
      await db.store.approvals.decide(decided.id, { status: 'denied', by: 'alice', reason: null, via: 'api' });
      now += 2_500;
      expect(await db.store.approvals.waiting()).toEqual({ count: 2, oldestAgeMs: 7_500 });
      // the oldest has expired (not yet swept): it no longer waits for anyone
      now = Date.parse(oldest.expires_at);
      expect(await db.store.approvals.waiting()).toEqual({ count: 1, oldestAgeMs: 60_000 - 5_000 });
    });
  });

  describe('when a request is decided', () => {
    it('decides it once: of 20 concurrent approvals from two stores over one database, exactly one wins', async () => {
      const created = await db.store.approvals.create(request);
      const other = await open();
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? other : db.store).approvals.decide(created.id, { status: 'approved', by: index % 2 ? 'alice' : 'bob', reason: null, via: 'api' })));
      const won = outcomes.filter((outcome) => outcome !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ status: 'approved', decided_at: '2026-05-31T10:00:00.000Z' });
      expect(await db.store.approvals.decide(created.id, { status: 'denied', by: 'alice', reason: 'late', via: 'api' })).toBeUndefined();
    });

    it('approves or denies only before its expiry, and expires it only after', async () => {
      const created = await db.store.approvals.create({ ...request, ttlMs: 1000 });
      expect(await db.store.approvals.decide(created.id, { status: 'expired', by: null, reason: null, via: 'expiry' })).toBeUndefined();
      expect(await db.store.approvals.due(10)).toEqual([]);
      now += 1000;
      expect((await db.store.approvals.due(10)).map((due) => due.id)).toEqual([created.id]);
      expect(await db.store.approvals.decide(created.id, { status: 'approved', by: 'alice', reason: null, via: 'api' })).toBeUndefined();
      expect(await db.store.approvals.decide(created.id, { status: 'expired', by: null, reason: null, via: 'expiry' })).toMatchObject({ status: 'expired', decided_via: 'expiry' });
      expect(await db.store.approvals.due(10)).toEqual([]);
    });

    it('records the receipt the decision produced, once, and tells the second settler it was not recorded', async () => {
      const created = await db.store.approvals.create(request);
      await db.store.approvals.decide(created.id, { status: 'denied', by: 'alice', reason: 'no', via: 'api' });
      expect(await db.store.approvals.settle(created.id, 'receipt-1')).toBe(true);
      expect(await db.store.approvals.settle(created.id, 'receipt-2')).toBe(false);
      expect(await db.store.approvals.get(created.id)).toMatchObject({ status: 'denied', decided_by: 'alice', decision_reason: 'no', receipt_id: 'receipt-1' });
    });

    it('appends the event that announces the receipt in the transaction that records it, and none for a second settler', async () => {
      const created = await db.store.approvals.create(request);
      await db.store.approvals.decide(created.id, { status: 'denied', by: 'alice', reason: 'no', via: 'api' });
      const { last } = await db.store.events.bounds();
      const event = { type: 'approval.resolved', at_ms: now, data: JSON.stringify({ approval: created.id, receipt: 'receipt-1' }) };
      const other = await open();
      const [first, second] = await Promise.all([db.store.approvals.settleAnnouncing(created.id, 'receipt-1', event), other.approvals.settleAnnouncing(created.id, 'receipt-2', { ...event, data: '{"second":true}' })]);
      const stored = [first, second].filter((outcome) => outcome !== undefined);
      expect(stored).toHaveLength(1);
      expect(stored[0]!.seq).toBeGreaterThan(last);
      expect(await db.store.events.after(last, 10)).toEqual([{ seq: stored[0]!.seq, type: event.type, at_ms: now, data: stored[0]!.data }]);
      expect((await db.store.approvals.get(created.id))?.receipt_id).toBe(first ? 'receipt-1' : 'receipt-2');
      expect(await db.store.approvals.settleAnnouncing(created.id, 'receipt-3', event)).toBeUndefined();
      expect(await db.store.events.after(last, 10)).toHaveLength(1);
    });
  });

  describe('when an approved call runs under a lease', () => {
    const runner = { by: 'host-a pid 1 (instance a)', leaseMs: 30_000 };
    it('records who runs it until when, renews the lease while no receipt is stored, and lets another process take it over once, after it lapsed', async () => {
      const created = await db.store.approvals.create(request);
      const approved = await db.store.approvals.decide(created.id, { status: 'approved', by: 'alice', reason: null, via: 'api' }, runner);
      expect(approved?.run).toEqual({ by: runner.by, lease_until: '2026-05-31T10:00:30.000Z' });
      now += 20_000;
      expect(await db.store.approvals.renew(created.id, runner)).toBe(true);
      expect(await db.store.approvals.renew(created.id, { ...runner, by: 'someone else' })).toBe(false);
      now += 29_999;
      expect(await db.store.approvals.lapsed(10)).toEqual([]);
      now += 1;
      const [lapsed] = await db.store.approvals.lapsed(10);
      expect(lapsed).toMatchObject({ id: created.id, status: 'approved', receipt_id: null, run: { by: runner.by, lease_until: '2026-05-31T10:00:50.000Z' } });
      const other = await open();
      const takers = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 ? other : db.store).approvals.takeOver(lapsed!, { by: `taker ${index}`, leaseMs: 30_000 })));
      expect(takers.filter((taken) => taken !== undefined)).toHaveLength(1);
      expect(await db.store.approvals.lapsed(10)).toEqual([]);
      // the first runner, back, finds the run is no longer its own
      expect(await db.store.approvals.renew(created.id, runner)).toBe(false);
    });

    // review userY, Y5: the closer's takeover wrote it as the runner, with a fresh lease, and the settling update kept it
    it.each(['settle', 'settleAnnouncing'] as const)('%s puts back the run that lapsed as the request run, in the update that links the receipt', async (how) => {
      const created = await db.store.approvals.create(request);
      await db.store.approvals.decide(created.id, { status: 'approved', by: 'alice', reason: null, via: 'api' }, runner);
      now += 30_000;
      const [lapsed] = await db.store.approvals.lapsed(10);
      const taken = await db.store.approvals.takeOver(lapsed!, { by: 'closer pid 2 (instance b)', leaseMs: 30_000 });
      expect(taken?.run?.by).toBe('closer pid 2 (instance b)');
      const event = { type: 'approval.resolved', at_ms: now, data: '{}' };
      const linked = how === 'settle' ? await db.store.approvals.settle(created.id, 'receipt-1', lapsed!.run!) : await db.store.approvals.settleAnnouncing(created.id, 'receipt-1', event, lapsed!.run!);
      expect(linked).toBeTruthy();
      expect(await db.store.approvals.get(created.id)).toMatchObject({ receipt_id: 'receipt-1', run: { by: runner.by, lease_until: '2026-05-31T10:00:30.000Z' } });
      // neither process may renew it now, and a second receipt changes nothing
      expect(await db.store.approvals.renew(created.id, runner)).toBe(false);
      expect(await db.store.approvals.settle(created.id, 'receipt-2', { by: 'other', lease_until: '2026-05-31T11:00:00.000Z' })).toBe(false);
      expect((await db.store.approvals.get(created.id))?.run).toEqual(lapsed!.run);
    });

    it('lists no request whose receipt is stored, nor one decided otherwise', async () => {
      const created = await db.store.approvals.create(request);
      await db.store.approvals.decide(created.id, { status: 'approved', by: 'alice', reason: null, via: 'api' }, runner);
      await db.store.approvals.settle(created.id, 'receipt-1');
      const denied = await db.store.approvals.create(request);
      await db.store.approvals.decide(denied.id, { status: 'denied', by: 'alice', reason: null, via: 'api' });
      now += 60_000;
      expect(await db.store.approvals.lapsed(10)).toEqual([]);
      expect(await db.store.approvals.renew(created.id, runner)).toBe(false);
    });
  });

  // review userZ4, F3: approved at an instance that runs calls elsewhere, with no run; an instance of its place claims it
  describe('when a request is approved with no run (at an instance that runs calls elsewhere)', () => {
    const approve = async (): Promise<ApprovalRecord> => {
      const created = await db.store.approvals.create(request);
      const approved = await db.store.approvals.decide(created.id, { status: 'approved', by: 'alice', reason: 'fine', via: 'api' });
      expect(approved).toMatchObject({ status: 'approved', decided_by: 'alice', run: null, receipt_id: null });
      return approved!;
    };

    it('lists it as unclaimed, never as a lapsed run, and lets exactly one of 20 claimers across two stores take its run', async () => {
      const approved = await approve();
      now += 5 * 60_000;
      expect(await db.store.approvals.lapsed(10)).toEqual([]);
      expect((await db.store.approvals.unclaimed(10)).map((record) => record.id)).toEqual([approved.id]);
      const other = await open();
      const claims = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? other : db.store).approvals.claim(approved.id, { by: `claimer ${index}`, leaseMs: 30_000 })));
      const won = claims.filter((claimed) => claimed !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ id: approved.id, status: 'approved', decided_by: 'alice', run: { lease_until: '2026-05-31T10:05:30.000Z' } });
      expect(await db.store.approvals.unclaimed(10)).toEqual([]);
      // the claimer holds it as a runner does: renewed while it runs, closed as interrupted if it lapses
      expect(await db.store.approvals.renew(approved.id, { by: won[0]!.run!.by, leaseMs: 30_000 })).toBe(true);
      expect(await db.store.approvals.expireUnclaimed(approved.id)).toBeUndefined();
    });

    it('expires it once past its expiry, keeping who approved it; no one can claim it then', async () => {
      const approved = await approve();
      expect(await db.store.approvals.expireUnclaimed(approved.id)).toBeUndefined();
      now += 10 * 60_000;
      expect(await db.store.approvals.claim(approved.id, { by: 'late', leaseMs: 30_000 })).toBeUndefined();
      const other = await open();
      const closers = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 ? other : db.store).approvals.expireUnclaimed(approved.id)));
      const closed = closers.filter((record) => record !== undefined);
      expect(closed).toHaveLength(1);
      expect(closed[0]).toMatchObject({ status: 'expired', decided_by: 'alice', decision_reason: 'fine', run: null, receipt_id: null });
      expect(await db.store.approvals.unclaimed(10)).toEqual([]);
      expect(await db.store.approvals.due(10)).toEqual([]);
    });

    // review Z5, Z5-11: a sweep read the oldest 100 each time, and more than 100 no gateway ran hid every newer one
    it('pages through them oldest decision first (then by id) after a position, so that a sweep reaches the newest', async () => {
      const approved: ApprovalRecord[] = [];
      for (let index = 0; index < 5; index += 1) {
        approved.push(await approve());
        // two decided in the same millisecond: ordered by id
        if (index !== 2) now += 1;
      }
      const order = [...approved].sort((left, right) => Date.parse(left.decided_at!) - Date.parse(right.decided_at!) || (left.id < right.id ? -1 : 1)).map((record) => record.id);
      const seen: string[] = [];
      let after: { decidedMs: number; id: string } | undefined;
      for (let pages = 0; pages < 5; pages += 1) {
        const page = await db.store.approvals.unclaimed(2, after);
        seen.push(...page.map((record) => record.id));
        if (page.length < 2) break;
        const last = page.at(-1)!;
        after = { decidedMs: Date.parse(last.decided_at!), id: last.id };
      }
      expect(seen).toEqual(order);
      expect((await db.store.approvals.unclaimed(10)).map((record) => record.id)).toEqual(order);
    });

    it('does not list a request approved with its run, pending, or denied', async () => {
      const created = await db.store.approvals.create(request);
      await db.store.approvals.decide(created.id, { status: 'approved', by: 'alice', reason: null, via: 'api' }, { by: 'runner', leaseMs: 30_000 });
      await db.store.approvals.create(request);
      const denied = await db.store.approvals.create(request);
      await db.store.approvals.decide(denied.id, { status: 'denied', by: 'alice', reason: null, via: 'api' });
      expect(await db.store.approvals.unclaimed(10)).toEqual([]);
      expect(await db.store.approvals.claim(created.id, { by: 'other', leaseMs: 30_000 })).toBeUndefined();
      expect(await db.store.approvals.claim(denied.id, { by: 'other', leaseMs: 30_000 })).toBeUndefined();
    });
  });

  describe('when requests are listed', () => {
    it('pages them newest first, filtered by status, caller and tool', async () => {
      const first = await db.store.approvals.create(request);
      now += 1;
      const second = await db.store.approvals.create({ ...request, caller: 'lead', tool: 'shell-exec' });
      now += 1;
      const third = await db.store.approvals.create(request);
      await db.store.approvals.decide(third.id, { status: 'cancelled', by: 'bot', reason: null, via: 'api' });
      const ids = (records: ApprovalRecord[]) => records.map((record) => record.id);
      expect(ids(await db.store.approvals.list())).toEqual([third.id, second.id, first.id]);
      expect(ids(await db.store.approvals.list({ status: 'pending' }))).toEqual([second.id, first.id]);
      expect(ids(await db.store.approvals.list({ caller: 'bot' }))).toEqual([third.id, first.id]);
      expect(ids(await db.store.approvals.list({ tool: 'shell-exec' }))).toEqual([second.id]);
      expect(ids(await db.store.approvals.list({ limit: 1, offset: 1 }))).toEqual([second.id]);
    });

    // review J F1: the listing judged who may see a request after reading it whole, so an asker who sees none of a
    // history (or skips it with offset) read all of it; the query now judges, and skipped or hidden rows are not read
    it('keeps to what visibleTo may see, as maySee judges it, counting offset over those and never reading the others', async () => {
      const gate = (approvers: NewApproval['rule']['approvers']): NewApproval => ({ ...request, caller: 'other', rule: { ...request.rule, approvers } });
      const byRole = await db.store.approvals.create(gate({ roles: ['approver'] }));
      now += 1;
      const byName = await db.store.approvals.create(gate({ principals: ['lead'] }));
      now += 1;
      const open = await db.store.approvals.create(gate({}));
      now += 1;
      const own = await db.store.approvals.create({ ...request, caller: 'lead' });
      now += 1;
      const hidden = await db.store.approvals.create(gate({ roles: ['trusted'], principals: ['carol'] }));
      await db.backend.sql("UPDATE approvals SET params = 'not json' WHERE id = ?", [hidden.id]);
      const ids = (records: ApprovalRecord[]) => records.map((record) => record.id);
      const as = (name: string, roles: string[], query = {}) => db.store.approvals.list({ ...query, visibleTo: { name, roles } });
      expect(ids(await as('lead', ['agent']))).toEqual([own.id, open.id, byName.id]);
      expect(ids(await as('alice', ['approver']))).toEqual([own.id, open.id, byRole.id]);
      expect(ids(await as('bot', ['agent'], { caller: 'other' }))).toEqual([open.id]);
      expect(ids(await as('nobody', []))).toEqual([open.id]);
      expect(ids(await as('lead', ['agent'], { offset: 2, limit: 5 }))).toEqual([byName.id]);
      await expect(as('root', ['admin'])).rejects.toThrow();
      expect(ids(await as('root', ['admin'], { offset: 1 }))).toEqual([own.id, open.id, byName.id, byRole.id]);
    });

    // review J: GET /v1/approvals pages by a keyset (before = the last request shown), not only by OFFSET, which
    // counts from the newest now and walks the entries it skips
    it('lists only the requests after `before`, in the same order, requests made in the same millisecond told apart by id', async () => {
      const made: ApprovalRecord[] = [];
      for (let index = 0; index < 5; index += 1) {
        made.push(await db.store.approvals.create({ ...request, caller: index === 2 ? 'lead' : 'bot' }));
        // two pairs share their millisecond
        if (index % 2 === 1) now += 1;
      }
      const ids = (records: ApprovalRecord[]) => records.map((record) => record.id);
      const order = ids(await db.store.approvals.list());
      expect(new Set(order)).toEqual(new Set(ids(made)));
      const position = (id: string) => ({ createdMs: Date.parse(made.find((record) => record.id === id)!.created_at), id });
      for (let at = 0; at < order.length; at += 1) {
        expect(ids(await db.store.approvals.list({ before: position(order[at]!) }))).toEqual(order.slice(at + 1));
      }
      expect(ids(await db.store.approvals.list({ before: position(order[0]!), limit: 2 }))).toEqual(order.slice(1, 3));
      const bots = order.filter((id) => made.find((record) => record.id === id)!.caller === 'bot');
      expect(ids(await db.store.approvals.list({ before: position(bots[0]!), caller: 'bot', visibleTo: { name: 'bot', roles: ['agent'] } }))).toEqual(bots.slice(1));
    });
  });
});

describe.each(storeKinds())('$name rejected-call store', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  const record = (id: string, at: string, extra: Record<string, unknown> = {}) => ({ type: 'rejected' as const, id, at, caller: 'bot', session: null, tool: 'shel-exec', code: 'TOOL_NOT_FOUND', reason: "unknown tool 'shel-exec'", params: { cmd: 'ls' }, ...extra });

  it('keeps records newest first, filtered by caller, tool, code and time', async () => {
    await db.store.rejections.save(record('r1', '2026-05-31T10:00:00.000Z'));
    await db.store.rejections.save(record('r2', '2026-05-31T10:00:01.000Z', { caller: 'lead', code: 'TOOL_FORBIDDEN', tool: 'deploy' }));
    await db.store.rejections.save(record('r3', '2026-05-31T10:00:02.000Z', { caller: null, session: 's-1' }));
    const ids = async (query: Parameters<Store['rejections']['list']>[0]) => (await db.store.rejections.list(query)).map((entry) => entry.id);
    expect(await db.store.rejections.list({ limit: 1 })).toEqual([record('r3', '2026-05-31T10:00:02.000Z', { caller: null, session: 's-1' })]);
    expect(await ids({})).toEqual(['r3', 'r2', 'r1']);
    expect(await ids({ caller: 'bot' })).toEqual(['r1']);
    expect(await ids({ code: 'TOOL_FORBIDDEN' })).toEqual(['r2']);
    expect(await ids({ tool: 'shel-exec', since: '2026-05-31T10:00:01.500Z' })).toEqual(['r3']);
  });

  it('keeps at most 8 KiB of params, with the cut counted', async () => {
    await db.store.rejections.save(record('big', '2026-05-31T10:00:00.000Z', { params: { blob: 'x'.repeat(20_000) } }));
    const [stored] = await db.store.rejections.list({});
    expect(typeof stored!.params).toBe('string');
    expect(stored!.params as string).toMatch(/^\{"blob":"x+\[… \d+ chars cut of 20011 …\]$/);
  });
});
