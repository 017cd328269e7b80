import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { walkSqliteFile } from '../../src/store/sqlite-chain-walk.js';
import { makeReceipt, makeStoreFolder } from './support.js';

// A walk of the chain reads a page bounded in rows and in bytes at a time (the sizes of the next rows first, then the
// text of those that fit; a row larger than the bytes comes alone): however the pages fall, it checks every link once
// and names the same first broken one.

const SIZES = [10, 120_000, 10, 10, 300_000, 50_000, 50_000, 10, 400_000, 10];
const PAGES = [
  { rows: 5000, bytes: 8 * 1024 * 1024 },
  { rows: 1, bytes: 8 * 1024 * 1024 },
  { rows: 5000, bytes: 1 },
  { rows: 3, bytes: 150_000 },
  { rows: 5000, bytes: 400_000 },
];

let folder: { path: string; cleanup: () => Promise<void> };
let path: string;

beforeEach(async () => {
  folder = await makeStoreFolder();
  path = join(folder.path, 'receipts.db');
  const store = openSqliteStore({ path });
  for (const [at, size] of SIZES.entries()) await store.receipts.save(makeReceipt({ id: `r${at}`, output: 'o'.repeat(size) }));
  await store.close();
});
afterEach(() => folder.cleanup());

describe('walkSqliteFile', () => {
  describe.each(PAGES)('when a page holds at most $rows rows and $bytes bytes', (page) => {
    it('checks every link from genesis to the head', async () => {
      expect(await walkSqliteFile(path, { page })).toMatchObject({ ok: true, checked: SIZES.length, head: { seq: SIZES.length } });
    });

    it('names the first edited receipt, after the large ones before it', async () => {
      const database = new BetterSqlite3(path);
      database.prepare("UPDATE receipts SET body = replace(body, '\"output\":\"o', '\"output\":\"0') WHERE seq IN (7, 9)").run();
      database.close();
      expect(await walkSqliteFile(path, { page })).toMatchObject({ ok: false, checked: 6, broken: { seq: 7, reason: 'hash_mismatch' } });
    });

    it('names a deleted receipt at a page boundary as missing', async () => {
      const database = new BetterSqlite3(path);
      database.prepare('DELETE FROM receipts WHERE seq = 6').run();
      database.close();
      expect(await walkSqliteFile(path, { page })).toMatchObject({ ok: false, checked: 5, broken: { seq: 6, reason: 'missing' } });
    });
  });
});
