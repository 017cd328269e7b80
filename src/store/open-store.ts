import type { PostgresStoreOptions } from './postgres/postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** Which store to open: PostgreSQL when a `postgres://` URL is given, else the SQLite file. */
export interface StoreOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`) */
  url?: string;
  /** the SQLite file when there is no URL */
  sqlitePath: string;
  poolMax?: number;
  now?: () => number;
  /** where a PostgreSQL store's bus reports messages it dropped (rate-limited) */
  warn?: (message: string, details: Record<string, unknown>) => void;
}

/** Opens the configured store. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const shared = options.now ? { now: options.now } : {};
  if (options.url) return openPostgresStore({ url: options.url, ...(options.poolMax !== undefined ? { poolMax: options.poolMax } : {}), ...(options.warn ? { warn: options.warn } : {}), ...shared });
  return openSqliteStore({ path: options.sqlitePath, ...shared });
}

/**
 * Opens a PostgreSQL store. The driver and the store's modules are loaded here, on the first open: a gateway on
 * SQLite, the default, never loads them (issue #18: two dozen modules of every start).
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const { openPostgresStore: open } = await import('./postgres/postgres-store.js');
  return open(options);
}
