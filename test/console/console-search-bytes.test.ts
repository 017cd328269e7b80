import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_BYTES } from '../../src/console/index.js';
import { makeReceipt } from '../store/support.js';
import { startAdminConsole, type AdminConsole } from './support.js';

const MIB = 1024 * 1024;

// A search read the newest 10,000 calls whatever their size: over calls of 1 MiB output each it parsed hundreds of
// MB on the event loop (review E12). It now reads at most SEARCH_BYTES of stored calls, the newest first.
describe('the console\'s search (q=) over large calls', () => {
  let admin: AdminConsole;

  beforeAll(async () => {
    admin = await startAdminConsole();
    const failed = { ok: false, code: 'NONZERO_EXIT' as const, exit_code: 1 };
    await admin.store.receipts.save(makeReceipt({ ...failed, id: 'old-needle', output: '', error: 'a needle in an older call\n', started_at: '2026-01-01T00:00:00.000Z' }));
    const large = Math.ceil(SEARCH_BYTES / MIB) + 4;
    for (let index = 0; index < large; index += 1) {
      await admin.store.receipts.save(makeReceipt({ ...failed, id: `large-${index}`, output: 'h'.repeat(MIB), error: index === large - 1 ? 'the newest needle\n' : 'hay\n', started_at: new Date(Date.parse('2026-02-01T00:00:00.000Z') + index * 1000).toISOString() }));
    }
  }, 60_000);
  afterAll(() => admin?.stop());

  describe('when the newest calls hold more bytes than a search reads', () => {
    it('searches only the newest that fit, and says so', async () => {
      const page = await admin.page('/console/failures?q=needle');
      expect(page).toContain('and of them at most 16 MiB (fewer calls when their output is large)');
      expect(page).toContain('data-receipt="large-');
      expect(page).not.toContain('data-receipt="old-needle"');
    });

    it('finds the older call once To narrows the calls searched', async () => {
      expect(await admin.rows('q=needle&until=2026-01-31T00:00')).toContain('data-receipt="old-needle"');
    });
  });
});
