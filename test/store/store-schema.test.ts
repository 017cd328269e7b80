import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore, openSqliteStore, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, StoreError, type Store } from '../../src/store/index.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { storeKinds } from './backends.js';
import { makeReceipt, makeStoreFolder } from './support.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function sqlitePath(): Promise<string> {
  const folder = await makeStoreFolder();
  cleanups.push(folder.cleanup);
  return join(folder.path, 'hldp.sqlite');
}

function keep(store: Store): Store {
  cleanups.push(() => store.close());
  return store;
}

describe('the store schemas', () => {
  it('have the same steps, by version and name, in SQLite and PostgreSQL', () => {
    const steps = (migrations: Array<{ version: number; name: string }>) => migrations.map(({ version, name }) => ({ version, name }));
    expect(steps(POSTGRES_MIGRATIONS)).toEqual(steps(SQLITE_MIGRATIONS));
    expect(SQLITE_MIGRATIONS.map((migration) => migration.version)).toEqual(SQLITE_MIGRATIONS.map((_migration, index) => index + 1));
  });
});

describe('the SQLite store schema', () => {
  it('throws asking for an upgrade when the schema is newer than this version knows', async () => {
    const path = await sqlitePath();
    await keep(openSqliteStore({ path })).close();
    cleanups.pop();
    const database = new BetterSqlite3(path);
    database.pragma('user_version = 99');
    database.close();
    expect(() => openSqliteStore({ path })).toThrow(/upgrade brush-holder/);
  });

  it('creates its folder 0700 and the database, its -wal and -shm 0600: they hold the console\'s signing key and every receipt', async () => {
    const path = join(await sqlitePath(), '..', 'made', 'by', 'us', 'hldp.sqlite');
    const store = keep(openSqliteStore({ path }));
    await store.receipts.save(makeReceipt({ id: 'r1' }));
    const mode = async (file: string) => (await stat(file)).mode & 0o777;
    expect(await mode(join(path, '..'))).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect([file, await mode(file)]).toEqual([file, 0o600]);
  });

  it('opens a file in WAL mode', async () => {
    const path = await sqlitePath();
    keep(openSqliteStore({ path }));
    const database = new BetterSqlite3(path, { readonly: true });
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      database.close();
    }
  });

  describe('when a version 1 file (before the chain) is opened', () => {
    it('links the receipts it holds in the order they were stored, and returns them unchanged', async () => {
      const path = await sqlitePath();
      const legacy = new BetterSqlite3(path);
      legacy.exec(SQLITE_MIGRATIONS[0]!.up as string);
      legacy.pragma('user_version = 1');
      const old = [makeReceipt({ id: 'old-1', params: { b: 1, a: 2 } }), makeReceipt({ id: 'old-2', ok: false })];
      for (const receipt of old) {
        legacy.prepare('INSERT INTO receipts (id, tool, ok, started_ms, body) VALUES (?, ?, ?, ?, ?)').run(receipt.id, receipt.tool, receipt.ok ? 1 : 0, Date.parse(receipt.started_at), JSON.stringify(receipt));
      }
      legacy.close();
      const store = keep(openSqliteStore({ path }));
      expect(await store.receipts.get('old-1')).toEqual(old[0]);
      await store.receipts.save(makeReceipt({ id: 'new-1' }));
      expect(await store.receipts.verify()).toMatchObject({ ok: true, checked: 3, head: { seq: 3 } });
      expect((await store.receipts.list()).map((receipt) => receipt.id)).toEqual(['new-1', 'old-2', 'old-1']);
    });
  });
});

describeWithPostgres('the PostgreSQL store schema', () => {
  it('has the same tables as the SQLite store, plus its migrations table', async () => {
    const [sqliteKind, postgresKind] = storeKinds();
    const [sqlite, pg] = [await sqliteKind!.make(), await postgresKind!.make()];
    cleanups.push(() => sqlite.cleanup(), () => pg.cleanup());
    await sqlite.open();
    await pg.open();
    expect(await pg.tables()).toEqual([...(await sqlite.tables()), 'schema_migrations'].sort());
  });

  it('lets four instances start at once on an empty database, applying each step once', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore({ url: database.url })));
    cleanups.push(() => Promise.all(stores.map((store) => store.close())));
    const raw = postgres(database.url, { max: 1, onnotice: () => undefined });
    cleanups.push(() => raw.end());
    expect(await raw`SELECT version, name FROM schema_migrations ORDER BY version`).toEqual(POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })));
    await Promise.all(stores.map((store, index) => store.receipts.save(makeReceipt({ id: `from-${index}` }))));
    expect(await stores[0]!.receipts.verify()).toMatchObject({ ok: true, checked: 4 });
  });

  it('throws asking for an upgrade when the schema is newer than this version knows', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    await (await openPostgresStore({ url: database.url })).close();
    const raw = postgres(database.url, { max: 1, onnotice: () => undefined });
    await raw`INSERT INTO schema_migrations (version, name, applied_ms) VALUES (99, 'from the future', 0)`;
    await raw.end();
    await expect(openPostgresStore({ url: database.url })).rejects.toThrow(/newer than this brush-holder knows.*upgrade brush-holder/);
  });

  it('refuses a database whose encoding is not UTF8, saying how to create one', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const admin = postgres(database.url.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => undefined });
    const name = `${new URL(database.url).pathname.slice(1)}_ascii`;
    await admin.unsafe(`CREATE DATABASE "${name}" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
    cleanups.push(async () => {
      await admin.unsafe(`DROP DATABASE "${name}" WITH (FORCE)`);
      await admin.end();
    });
    await expect(openPostgresStore({ url: database.url.replace(/\/[^/]*$/, `/${name}`) })).rejects.toThrow(/encoding is SQL_ASCII; create it with ENCODING 'UTF8'/);
  });

  it('throws a StoreError naming the server, never the password, when nothing listens there', async () => {
    const opening = openPostgresStore({ url: 'postgres://hldp:s3cret-pass@127.0.0.1:1/hldp', connectTimeoutSeconds: 2 });
    await expect(opening).rejects.toBeInstanceOf(StoreError);
    await opening.catch((error: Error) => {
      expect(error.message).toMatch(/^cannot open the PostgreSQL store at postgres:\/\/hldp:\*\*\*@127\.0\.0\.1:1\/hldp: .*ECONNREFUSED/);
      expect(error.message).not.toContain('s3cret');
    });
  });
});
