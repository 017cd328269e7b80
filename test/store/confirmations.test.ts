import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashParams, type Store } from '../../src/store/index.js';
import { runsHere, storeKinds, type StoreBackend } from './backends.js';

const call = { tool: 'file-write', params: { path: 'notes.txt', content: 'hello', append: false }, commit: 'c'.repeat(40) };

describe.each(storeKinds())('$name confirmation store', (kind) => {
  if (!runsHere(kind)) return;
  let backend: StoreBackend;
  let now: number;
  let store: Store;
  const open = (): Promise<Store> => backend.open({ now: () => now });

  beforeEach(async () => {
    backend = await kind.make();
    now = Date.parse('2026-05-31T10:00:00.000Z');
    store = await open();
  });
  afterEach(async () => {
    await backend.cleanup();
  });

  describe('when a confirmation is created', () => {
    it('returns a token bound to the tool, the params hash and the commit, expiring in 10 minutes', async () => {
      const pending = await store.confirmations.create(call);
      expect(pending).toEqual({
        token: expect.stringMatching(/^hldp_confirm_[A-Za-z0-9_-]{32}$/),
        tool: 'file-write',
        params: call.params,
        params_hash: hashParams(call.params),
        commit: call.commit,
        created_at: '2026-05-31T10:00:00.000Z',
        expires_at: '2026-05-31T10:10:00.000Z',
      });
    });

    it('stores only a hash of the token', async () => {
      const { token } = await store.confirmations.create(call);
      const dump = JSON.stringify(await backend.sql('SELECT * FROM confirmations'));
      expect(dump).toContain(call.commit);
      expect(dump).not.toContain(token);
    });
  });

  describe('when the token is used', () => {
    it('returns the pending call once, and refuses it as used the second time', async () => {
      const { token } = await store.confirmations.create(call);
      expect(await store.confirmations.consume(token, call)).toMatchObject({ ok: true, confirmation: { tool: 'file-write', params: call.params } });
      expect(await store.confirmations.consume(token, call)).toEqual({ ok: false, reason: 'used', message: expect.stringContaining('run the call again') });
    });

    it('accepts the same params with keys in another order', async () => {
      const { token } = await store.confirmations.create(call);
      const reordered = { append: false, content: 'hello', path: 'notes.txt' };
      expect((await store.confirmations.consume(token, { ...call, params: reordered })).ok).toBe(true);
    });

    it.each([
      ['changed params', { ...call, params: { ...call.params, content: 'rm -rf /' } }],
      ['an added param', { ...call, params: { ...call.params, create_dirs: true } }],
      ['another tool', { ...call, tool: 'shell-exec' }],
      ['another index commit', { ...call, commit: 'd'.repeat(40) }],
    ])('refuses %s as a mismatch and leaves the token pending', async (_case, binding) => {
      const { token } = await store.confirmations.create(call);
      expect(await store.confirmations.consume(token, binding)).toMatchObject({ ok: false, reason: 'mismatch' });
      expect((await store.confirmations.consume(token, call)).ok).toBe(true);
    });

    it('refuses an unknown token', async () => {
      expect(await store.confirmations.consume('hldp_confirm_made-up', call)).toMatchObject({ ok: false, reason: 'unknown' });
    });

    it('lets exactly one of 20 concurrent uses through, from two stores over the same database', async () => {
      const { token } = await store.confirmations.create(call);
      const other = await open();
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? other : store).confirmations.consume(token, call)));
      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
      expect(outcomes.filter((outcome) => !outcome.ok && outcome.reason === 'used')).toHaveLength(19);
    });
  });

  describe('when time passes (injected clock)', () => {
    it('accepts the token just before expiry and refuses it at expiry', async () => {
      const first = await store.confirmations.create(call);
      const second = await store.confirmations.create(call);
      now += 10 * 60 * 1000 - 1;
      expect((await store.confirmations.consume(first.token, call)).ok).toBe(true);
      now += 1;
      expect(await store.confirmations.consume(second.token, call)).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('honours a ttl given for one confirmation', async () => {
      const { token } = await store.confirmations.create({ ...call, ttlMs: 1000 });
      now += 1000;
      expect(await store.confirmations.peek(token)).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('purges expired and used tokens, keeping pending ones', async () => {
      const used = await store.confirmations.create(call);
      await store.confirmations.consume(used.token, call);
      await store.confirmations.create({ ...call, ttlMs: 1000 });
      const pending = await store.confirmations.create(call);
      now += 1000;
      expect(await store.confirmations.purge()).toBe(2);
      expect((await store.confirmations.peek(pending.token)).ok).toBe(true);
    });
  });

  describe('when the gateway restarts', () => {
    it('returns the pending call from a reopened store, and it is still single use', async () => {
      const { token } = await store.confirmations.create(call);
      await store.close();
      store = await open();
      expect(await store.confirmations.peek(token)).toMatchObject({ ok: true, confirmation: { tool: 'file-write', params: call.params, commit: call.commit } });
      expect((await store.confirmations.consume(token, call)).ok).toBe(true);
      await store.close();
      store = await open();
      expect(await store.confirmations.consume(token, call)).toMatchObject({ ok: false, reason: 'used' });
    });
  });

  describe('when peeked', () => {
    it('returns the pending call without using it up', async () => {
      const { token } = await store.confirmations.create(call);
      expect((await store.confirmations.peek(token)).ok).toBe(true);
      expect((await store.confirmations.peek(token)).ok).toBe(true);
      expect((await store.confirmations.consume(token, call)).ok).toBe(true);
    });
  });
});
