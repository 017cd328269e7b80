import { existsSync } from 'node:fs';
import type { GatewayConfig } from '../config/index.js';
import { describeUrl } from '../store/index.js';
import type { CommandIo } from './command.js';
import { terminalSafe } from './terminal-safe.js';

/** The store a reading command opens, how it names it, and whether the SQLite file it names is missing. */
export interface ReadStore {
  /** the config to open: the one given, or, for a SQLite file that does not exist, an in-memory store in its place */
  config: GatewayConfig;
  /** the SQLite file, or `PostgreSQL` and its URL without the password: what an answer that found nothing names */
  name: string;
  /** the SQLite file does not exist: said once on stderr, read as an empty store, never created */
  missing: boolean;
}

/** How a command names the configured store: the SQLite file, or the PostgreSQL URL with its password hidden. */
export function storeName(config: GatewayConfig): string {
  return config.store.url ? `PostgreSQL ${describeUrl(config.store.url)}` : config.receiptsDb;
}

/**
 * The store for a command that reads it (receipts, approvals, confirm, suggest). A read must not leave a new, empty
 * database behind (review userZ, Z4): a SQLite file that does not exist is said, with where the gateway's store is
 * configured, and read as the empty store it stands for (in memory), so that every answer keeps its shape. An
 * approver's `hldp approvals list` against a gateway on PostgreSQL, run without its store.url, made an empty SQLite
 * file and said "no pending approval requests" (review userZ4, F7).
 */
export function readStore(config: GatewayConfig, io: Pick<CommandIo, 'stderr'>): ReadStore {
  const name = storeName(config);
  const missing = !config.store.url && config.receiptsDb !== ':memory:' && !existsSync(config.receiptsDb);
  if (!missing) return { config, name, missing };
  io.stderr.write(
    terminalSafe(`no store at ${config.receiptsDb}: nothing was recorded there (is --config, HLDP_DATA_DIR or HLDP_RECEIPTS_DB the gateway's? a gateway on PostgreSQL names its store in store.url of the --config file, or HLDP_STORE_URL)`) + '\n',
  );
  return { config: { ...config, receiptsDb: ':memory:' }, name, missing };
}
