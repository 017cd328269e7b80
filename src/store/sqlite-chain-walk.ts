import BetterSqlite3, { type Database } from 'better-sqlite3';
import { walkChain, type ChainSource } from './chain-walk.js';
import type { ChainRow } from './receipt-chain.js';
import type { ChainLink, ChainReport } from './store.js';

/** The chain of a SQLite store as a walk reads it: inside whatever read transaction `database` is in. */
export function sqliteChainSource(database: Database): ChainSource {
  const checkpoint = database.prepare<[], ChainLink>('SELECT seq, hash FROM receipt_checkpoints ORDER BY seq DESC LIMIT 1');
  const head = database.prepare<[], ChainLink>('SELECT seq, hash FROM receipt_chain WHERE id = 1');
  // octet_length reads a stored text's length from its record, not the text
  const sizes = database.prepare<[number, number], { seq: number; bytes: number }>('SELECT seq, octet_length(body) AS bytes FROM receipts WHERE seq > ? ORDER BY seq LIMIT ?');
  const rows = database.prepare<[number, number], ChainRow>('SELECT seq, prev_hash, hash, body FROM receipts WHERE seq > ? AND seq <= ? ORDER BY seq');
  return {
    checkpoint: async () => checkpoint.get(),
    head: async () => head.get(),
    sizesAfter: async (after, limit) => sizes.all(after, limit),
    rowsThrough: async (after, last) => rows.all(after, last),
  };
}

/**
 * Walks the chain of the SQLite file at `path` on a read-only connection of its own, inside one read transaction (WAL
 * keeps its snapshot while others go on writing). `pause` runs between pages; `page`: their bounds (WALK_PAGE).
 */
export async function walkSqliteFile(path: string, options: { pause?: () => Promise<void>; page?: { rows: number; bytes: number } } = {}): Promise<ChainReport> {
  const reader = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    reader.exec('BEGIN');
    return await walkChain(sqliteChainSource(reader), options);
  } finally {
    reader.close();
  }
}
