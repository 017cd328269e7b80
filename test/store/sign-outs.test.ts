import { beforeEach, describe, expect, it } from 'vitest';
import { runsHere, storeKinds, useStore } from './backends.js';

describe.each(storeKinds())('$name console sign-outs', (kind) => {
  if (!runsHere(kind)) return;
  let now = Date.parse('2026-12-01T10:00:00Z');
  beforeEach(() => {
    now = Date.parse('2026-12-01T10:00:00Z');
  });
  const db = useStore(kind, { now: () => now });

  describe('when a sign-in is signed out at one instance', () => {
    it('is signed out at every store over the same database, and no other sign-in is', async () => {
      const other = await db.backend.open({ now: () => now });
      expect(await other.signOuts.has('sign-in-a')).toBe(false);
      await db.store.signOuts.add('sign-in-a', now + 60_000);
      expect(await other.signOuts.has('sign-in-a')).toBe(true);
      expect(await db.store.signOuts.has('sign-in-a')).toBe(true);
      expect(await other.signOuts.has('sign-in-b')).toBe(false);
    });

    it('takes the same sign-out twice (two tabs, two instances) as one', async () => {
      const other = await db.backend.open({ now: () => now });
      await Promise.all([db.store.signOuts.add('sign-in-a', now + 60_000), other.signOuts.add('sign-in-a', now + 60_000)]);
      expect(await db.backend.sql('SELECT id FROM console_sign_outs')).toEqual([{ id: 'sign-in-a' }]);
    });
  });

  describe('when a signed-out sign-in has expired', () => {
    it('forgets it at the next sign-out (its cookie is refused for its age), and keeps those still running', async () => {
      await db.store.signOuts.add('expires-soon', now + 1_000);
      await db.store.signOuts.add('expires-later', now + 3_600_000);
      now += 2_000;
      await db.store.signOuts.add('new', now + 60_000);
      const kept = await db.backend.sql('SELECT id FROM console_sign_outs ORDER BY id');
      expect(kept.map((row) => row.id)).toEqual(['expires-later', 'new']);
    });
  });
});
