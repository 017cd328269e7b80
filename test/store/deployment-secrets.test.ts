import { describe, expect, it } from 'vitest';
import { runsHere, storeKinds, useStore } from './backends.js';

describe.each(storeKinds())('$name deployment secrets', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  describe('when no instance has asked for a secret yet', () => {
    it('keeps the first value made and gives it from then on, without making another', async () => {
      expect(await db.store.secrets.getOrCreate('console.session_key', () => 'first')).toBe('first');
      let made = 0;
      expect(await db.store.secrets.getOrCreate('console.session_key', () => `second ${++made}`)).toBe('first');
      expect(made).toBe(0);
      expect(await db.store.secrets.getOrCreate('other', () => 'its own')).toBe('its own');
    });
  });

  describe('when several stores over one database ask at once (instances starting together)', () => {
    it('gives every one of them the same value', async () => {
      const others = await Promise.all([db.backend.open(), db.backend.open()]);
      const values = await Promise.all([db.store, ...others, db.store, ...others].map((each, index) => each.secrets.getOrCreate('console.session_key', () => `made by ${index}`)));
      expect(new Set(values).size).toBe(1);
      expect(await (await db.backend.open()).secrets.getOrCreate('console.session_key', () => 'late')).toBe(values[0]);
    });
  });
});
