import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { makeReceipt, makeStoreFolder } from './support.js';

let folder: Awaited<ReturnType<typeof makeStoreFolder>>;
let path: string;
let store: Store;

beforeEach(async () => {
  folder = await makeStoreFolder();
  path = join(folder.path, 'nested', 'hldp.sqlite');
  store = openSqliteStore({ path });
});
afterEach(async () => {
  await store.close();
  await folder.cleanup();
});

const at = (minute: number): string => `2026-05-31T10:${String(minute).padStart(2, '0')}:00.000Z`;

describe('SQLite receipt store', () => {
  describe('when a receipt is saved', () => {
    it('returns it whole from get, raw output included', async () => {
      const receipt = makeReceipt({ ok: false, code: 'NONZERO_EXIT', error: 'boom\n', stderr: 'boom\n', output: 'partial\n[… 10 bytes cut of 20 …]\ntail', cut_bytes: 10 });
      await store.receipts.save(receipt);
      expect(await store.receipts.get(receipt.id)).toEqual(receipt);
    });

    it('returns it after the database is closed and opened again', async () => {
      const receipt = makeReceipt();
      await store.receipts.save(receipt);
      await store.close();
      store = openSqliteStore({ path });
      expect(await store.receipts.get(receipt.id)).toEqual(receipt);
    });

    it('refuses a second receipt with the same id', async () => {
      const receipt = makeReceipt();
      await store.receipts.save(receipt);
      await expect(store.receipts.save({ ...receipt, ok: false })).rejects.toThrow(/UNIQUE/);
      expect((await store.receipts.get(receipt.id))?.ok).toBe(true);
    });

    it('returns undefined for an id never saved', async () => {
      expect(await store.receipts.get('no-such-call')).toBeUndefined();
    });
  });

  describe('when receipts are listed', () => {
    beforeEach(async () => {
      await store.receipts.save(makeReceipt({ id: 'r1', tool: 'shell-exec', ok: true, started_at: at(1) }));
      await store.receipts.save(makeReceipt({ id: 'r2', tool: 'file-read', ok: false, code: 'IO_ERROR', started_at: at(2) }));
      await store.receipts.save(makeReceipt({ id: 'r3', tool: 'shell-exec', ok: false, code: 'NONZERO_EXIT', started_at: at(3) }));
      await store.receipts.save(makeReceipt({ id: 'r4', tool: 'git-ops', ok: true, started_at: at(4) }));
      // same start as r4, saved later: newer
      await store.receipts.save(makeReceipt({ id: 'r5', tool: 'git-ops', ok: true, started_at: at(4) }));
    });

    it.each([
      ['no filter: newest first', {}, ['r5', 'r4', 'r3', 'r2', 'r1']],
      ['failed only', { status: 'failed' }, ['r3', 'r2']],
      ['ok only', { status: 'ok' }, ['r5', 'r4', 'r1']],
      ['one tool', { tool: 'shell-exec' }, ['r3', 'r1']],
      ['failed calls of one tool', { tool: 'shell-exec', status: 'failed' }, ['r3']],
      ['since a time', { since: at(3) }, ['r5', 'r4', 'r3']],
      ['since a Date', { since: new Date(at(4)) }, ['r5', 'r4']],
      ['a first page', { limit: 2 }, ['r5', 'r4']],
      ['a second page', { limit: 2, offset: 2 }, ['r3', 'r2']],
      ['past the end', { offset: 10 }, []],
    ] as const)('returns %s', async (_case, query, ids) => {
      expect((await store.receipts.list(query)).map((receipt) => receipt.id)).toEqual(ids);
    });

    it('throws naming the format for a since that is not a time', async () => {
      await expect(store.receipts.list({ since: 'yesterday-ish' })).rejects.toThrow(/ISO date/);
    });
  });

  describe('when the file is opened', () => {
    it('returns a database in WAL mode', async () => {
      const database = new BetterSqlite3(path, { readonly: true });
      try {
        expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        database.close();
      }
    });

    it('throws asking for an upgrade when the schema is newer than this version knows', async () => {
      await store.close();
      const database = new BetterSqlite3(path);
      database.pragma('user_version = 99');
      database.close();
      expect(() => openSqliteStore({ path })).toThrow(/upgrade brush-holder/);
      store = openSqliteStore({ path: ':memory:' });
    });
  });
});
