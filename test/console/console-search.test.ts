import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_ROWS } from '../../src/console/index.js';
import { makeReceipt } from '../store/support.js';
import { startAdminConsole, type AdminConsole } from './support.js';

// the real HTTP app over a real SQLite store holding one failure with a rare text, and more newer failures than a search reads
describe('the console\'s search (q=)', () => {
  let admin: AdminConsole;

  beforeAll(async () => {
    admin = await startAdminConsole();
    const failed = { ok: false, code: 'NONZERO_EXIT' as const, exit_code: 1, output: '' };
    await admin.store.receipts.save(makeReceipt({ ...failed, code: 'TIMEOUT', id: 'oldest', error: 'a needle in the oldest call\n', started_at: '2026-01-01T00:00:00.000Z' }));
    const saving: Array<Promise<void>> = [];
    for (let index = 0; index < SEARCH_ROWS; index += 1) {
      saving.push(admin.store.receipts.save(makeReceipt({ ...failed, id: `newer-${index}`, error: 'hay\n', started_at: new Date(Date.parse('2026-02-01T00:00:00.000Z') + index * 1000).toISOString() })));
    }
    await Promise.all(saving);
  }, 120_000);
  afterAll(() => admin?.stop());

  describe('when more calls meet the other filters than a search reads', () => {
    it('searches only the newest of them, and says how to reach older ones', async () => {
      const page = await admin.page('/console/failures?q=needle');
      expect(page).not.toContain('data-receipt="oldest"');
      expect(page).toContain(`reads only the newest ${SEARCH_ROWS.toLocaleString('en')} calls that meet the other filters, and of them at most 16 MiB (fewer calls when their output is large); set To earlier`);
      expect(await admin.rows('q=needle')).not.toContain('data-receipt="oldest"');
    });

    it('finds an older call once Until narrows the calls searched', async () => {
      expect(await admin.rows('q=needle&until=2026-01-31T00:00')).toContain('data-receipt="oldest"');
    });
  });

  // review J F3: code= read the stored body of every call the viewer may see, unbounded, even beside q=
  describe('when a code is asked of more calls than a search reads', () => {
    it('looks for it in the newest of them only, and says so', async () => {
      const page = await admin.page('/console/failures?status=all&code=TIMEOUT');
      expect(page).not.toContain('data-receipt="oldest"');
      expect(page).toContain(`reads only the newest ${SEARCH_ROWS.toLocaleString('en')} calls that meet the other filters`);
      expect(await admin.rows('status=all&code=TIMEOUT')).not.toContain('data-receipt="oldest"');
      expect(await admin.rows('code=TIMEOUT&q=needle')).not.toContain('data-receipt="oldest"');
    });

    it('finds an older call once Until narrows the calls read', async () => {
      expect(await admin.rows('code=TIMEOUT&until=2026-01-31T00:00')).toContain('data-receipt="oldest"');
      expect(await admin.rows('code=NONZERO_EXIT&until=2026-01-31T00:00')).not.toContain('data-receipt="oldest"');
    });
  });
});
