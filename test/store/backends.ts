import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { afterEach, beforeEach, it } from 'vitest';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { createTestDatabase, sharedPostgres } from '../helpers/postgres-suite.js';
import { makeStoreFolder } from './support.js';

/** One database of one kind, fresh for a test: stores opened over it, and raw SQL to inspect or tamper with it. */
export interface StoreBackend {
  /** a store over the database (call it twice for two instances sharing it) */
  open(options?: { now?: () => number }): Promise<Store>;
  /** raw SQL with `?` placeholders, as an operator with write access to the database would run it */
  sql(query: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** the user tables of the database */
  tables(): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** A kind of store the shared suites run over. */
export interface StoreKind {
  name: 'SQLite' | 'PostgreSQL';
  /** undefined when it can run here; else why not */
  unavailable: string | undefined;
  make(): Promise<StoreBackend>;
}

async function makeSqlite(): Promise<StoreBackend> {
  const folder = await makeStoreFolder();
  const path = join(folder.path, 'nested', 'hldp.sqlite');
  const stores: Store[] = [];
  let raw: BetterSqlite3.Database | undefined;
  const connection = (): BetterSqlite3.Database => (raw ??= new BetterSqlite3(path));
  return {
    async open(options = {}) {
      const store = openSqliteStore({ path, ...options });
      stores.push(store);
      return store;
    },
    async sql(query, params = []) {
      const statement = connection().prepare(query);
      return statement.reader ? (statement.all(...params) as Array<Record<string, unknown>>) : (statement.run(...params), []);
    },
    async tables() {
      const rows = connection().prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>;
      return rows.map((row) => row.name);
    },
    async cleanup() {
      await Promise.allSettled(stores.map((store) => store.close()));
      raw?.close();
      await folder.cleanup();
    },
  };
}

// one database per test file (creating one costs ~0.5 s); each test starts from an empty schema in it
let fileDatabase: Promise<{ url: string }> | undefined;

async function makePostgres(): Promise<StoreBackend> {
  const database = await (fileDatabase ??= createTestDatabase());
  const stores: Store[] = [];
  // bigint columns as numbers, as the store reads them
  const raw = postgres(database.url, { max: 2, onnotice: () => undefined, types: { bigint: { to: 20, from: [20], serialize: String, parse: Number } } });
  await raw.unsafe('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public');
  return {
    async open(options = {}) {
      const store = await openPostgresStore({ url: database.url, ...options });
      stores.push(store);
      return store;
    },
    async sql(query, params = []) {
      let index = 0;
      const rows = await raw.unsafe(query.replace(/\?/g, () => `$${++index}`), params as never[]);
      return [...rows] as Array<Record<string, unknown>>;
    },
    async tables() {
      const rows = await raw<Array<{ name: string }>>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`;
      return rows.map((row) => row.name);
    },
    async cleanup() {
      await Promise.allSettled(stores.map((store) => store.close()));
      await raw.end();
    },
  };
}

/** Both kinds of store, for `describe.each`. */
export function storeKinds(): StoreKind[] {
  const shared = sharedPostgres();
  return [
    { name: 'SQLite', unavailable: undefined, make: makeSqlite },
    { name: 'PostgreSQL', unavailable: shared.url === null ? shared.reason : undefined, make: makePostgres },
  ];
}

/**
 * Inside a `describe.each(storeKinds())` body: when the kind cannot run here, registers what says so (a failing test
 * under CI, a skipped one elsewhere whose name says it did not run) and returns false.
 */
export function runsHere(kind: StoreKind): boolean {
  if (kind.unavailable === undefined) return true;
  if (process.env.CI) {
    it(`needs ${kind.name}, which CI must provide`, () => {
      throw new Error(`${kind.name} is required under CI: ${kind.unavailable}`);
    });
  } else {
    it.skip(`DID NOT RUN: no ${kind.name} (${kind.unavailable})`, () => undefined);
  }
  return false;
}

/** The database and the store a test of a `describe.each(storeKinds())` suite works on, fresh for each test. */
export interface StoreUnderTest {
  readonly backend: StoreBackend;
  readonly store: Store;
}

/**
 * Inside a `describe.each(storeKinds())` body (after `runsHere`): a fresh database of `kind` and a store over it
 * before each test (opened with `options`, such as an injected clock), both closed and removed after it.
 */
export function useStore(kind: StoreKind, options: { now?: () => number } = {}): StoreUnderTest {
  let current: { backend: StoreBackend; store: Store } | undefined;
  const opened = (): { backend: StoreBackend; store: Store } => {
    if (!current) throw new Error('useStore: the store is opened in beforeEach; read it inside a test or a hook');
    return current;
  };
  beforeEach(async () => {
    const backend = await kind.make();
    current = { backend, store: await backend.open(options) };
  });
  afterEach(async () => {
    await current?.backend.cleanup();
    current = undefined;
  });
  return {
    get backend() {
      return opened().backend;
    },
    get store() {
      return opened().store;
    },
  };
}
