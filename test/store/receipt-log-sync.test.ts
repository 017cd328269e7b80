import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { SqliteReceiptStore } from '../../src/store/sqlite-receipts.js';
import { migrate } from '../../src/store/sqlite-schema.js';
import { WalSync } from '../../src/store/wal-sync.js';
import { makeReceipt, makeStoreFolder } from './support.js';

// Issue #18: a batch of receipts committed at synchronous = FULL synced the log inside the commit, on the event loop,
// and every other call and request of the gateway waited for the disk. A batch now commits without that sync and is
// synced off the loop before its saves resolve: a receipt is reported stored only once it is on disk, as before.
describe('SQLite receipts: the log synced off the event loop', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function folder(): Promise<string> {
    const made = await makeStoreFolder();
    cleanups.push(made.cleanup);
    return made.path;
  }

  describe('when the log cannot be synced', () => {
    it('refuses the save instead of reporting a receipt stored that may not be on disk', async () => {
      const root = await folder();
      const home = join(root, 'data');
      const store: Store = openSqliteStore({ path: join(home, 'receipts.db') });
      // a first receipt: the log exists and is synced
      await store.receipts.save(makeReceipt({ id: 'first' }));
      // SQLite keeps writing through the descriptors it holds; the log's name, which its sync opens, is gone
      const moved = join(root, 'moved');
      await rename(home, moved);
      let restored = false;
      cleanups.push(async () => {
        if (!restored) await rename(moved, home);
        await store.close();
      });
      await expect(store.receipts.save(makeReceipt({ id: 'second' }))).rejects.toThrow(/the batch was written, but the store's log could not be synced to disk/);
      await rename(moved, home);
      restored = true;
      // once the log can be synced again, saves are reported stored again
      await store.receipts.save(makeReceipt({ id: 'third' }));
      expect((await store.receipts.get('third'))?.id).toBe('third');
    });
  });

  describe('when receipts are saved', () => {
    it('stores them whole, in order, and leaves the connection at FULL for every other write', async () => {
      const path = join(await folder(), 'receipts.db');
      const database = new BetterSqlite3(path);
      cleanups.push(async () => void database.close());
      database.pragma('journal_mode = WAL');
      database.pragma('synchronous = FULL');
      migrate(database);
      const receipts = new SqliteReceiptStore(database, { path, now: Date.now });
      cleanups.push(() => receipts.close());
      await Promise.all(['a', 'b', 'c'].map((id) => receipts.save(makeReceipt({ id }))));
      expect(Number(database.pragma('synchronous', { simple: true }))).toBe(2);
      const report = await receipts.verify();
      expect(report).toMatchObject({ ok: true, checked: 3 });
    });
  });

  describe('which stores sync their log off the loop', () => {
    it.each([
      ['a WAL file at FULL', 'wal', 'FULL', true],
      ['a WAL file at NORMAL (its commits never wait for the disk)', 'wal', 'NORMAL', false],
      ['a rollback journal (a file system without shared memory)', 'delete', 'FULL', false],
    ])('%s', async (_name, journal, synchronous, synced) => {
      const path = join(await folder(), 'receipts.db');
      const database = new BetterSqlite3(path);
      cleanups.push(async () => void database.close());
      database.pragma(`journal_mode = ${journal}`);
      database.pragma(`synchronous = ${synchronous}`);
      expect(WalSync.of(database, path) !== undefined).toBe(synced);
    });

    it('an in-memory store has no log to sync', () => {
      const database = new BetterSqlite3(':memory:');
      cleanups.push(async () => void database.close());
      expect(WalSync.of(database, ':memory:')).toBeUndefined();
    });
  });
});
