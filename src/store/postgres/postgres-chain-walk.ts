import { walkChain } from '../chain-walk.js';
import type { ChainRow } from '../receipt-chain.js';
import type { ChainLink, ChainReport } from '../store.js';
import { connect, type ConnectOptions, type Database } from './database.js';

/**
 * Walks the chain inside one REPEATABLE READ transaction on `sql` (one snapshot while calls go on), a page bounded in
 * rows and bytes at a time: octet_length of a stored text reads its length, not the text (nor its TOAST).
 */
export function walkPostgresChain(sql: Database): Promise<ChainReport> {
  return sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) =>
    walkChain({
      checkpoint: async () => (await tx<ChainLink[]>`SELECT seq, hash FROM receipt_checkpoints ORDER BY seq DESC LIMIT 1`)[0],
      head: async () => (await tx<ChainLink[]>`SELECT seq, hash FROM receipt_chain WHERE id = 1`)[0],
      sizesAfter: async (after, limit) => [...(await tx<Array<{ seq: number; bytes: number }>>`SELECT seq, octet_length(body) AS bytes FROM receipts WHERE seq > ${after} ORDER BY seq LIMIT ${limit}`)],
      rowsThrough: async (after, last) => [...(await tx<ChainRow[]>`SELECT seq, prev_hash, hash, body FROM receipts WHERE seq > ${after} AND seq <= ${last} ORDER BY seq`)],
    }),
  ) as Promise<ChainReport>;
}

/** Walks the chain of the database at `options.url` on a connection of its own (named apart in pg_stat_activity), then closes it. */
export async function walkPostgresDatabase(options: Omit<ConnectOptions, 'poolMax'>): Promise<ChainReport> {
  const sql = connect({ ...options, poolMax: 1, applicationName: 'brush-holder chain walk' });
  try {
    return await walkPostgresChain(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
