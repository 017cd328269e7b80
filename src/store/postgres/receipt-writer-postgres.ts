import { linkHash } from '../receipt-chain.js';
import type { LinkToHash, WriterConnection } from '../receipt-writer-thread.js';
import { connect, type ConnectOptions, type Database } from './database.js';
import { appendPostgresReceipts } from './receipt-append.js';

/**
 * The receipt writer thread's connection to the store's PostgreSQL database (one, named apart in pg_stat_activity):
 * the driver builds a huge receipt's parameters and parses its row here, off the gateway's event loop.
 */
export async function postgresWriter(options: Omit<ConnectOptions, 'poolMax'>): Promise<WriterConnection> {
  const sql = connect({ ...options, poolMax: 1, applicationName: 'brush-holder receipt writer' });
  try {
    // connected before the first append: the driver learns the array types as it connects, and an array parameter
    // made before that goes as its element's type ("cannot cast type boolean to boolean[]")
    await sql`SELECT 1`;
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return {
    append: (batch) => appendPostgresReceipts(sql, batch),
    read: async (id) => {
      const [row] = await sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
      // an ArrayBuffer of its own, to be handed over whole (Buffer.from may give a slice of a shared pool)
      return row === undefined ? null : new TextEncoder().encode(row.body);
    },
    linkHashOf: (link) => linkHashIn(sql, link),
    close: () => sql.end({ timeout: 5 }),
  };
}

// what pg_export_snapshot() returns: hex groups joined by dashes (SET TRANSACTION SNAPSHOT takes no parameter)
const SNAPSHOT_ID = /^[0-9A-F]+(-[0-9A-F]+)+$/i;

/** The row's link hash as the walk's snapshot sees it: its text read and hashed here, never on the gateway's thread. */
async function linkHashIn(sql: Database, link: LinkToHash): Promise<string | null> {
  if (!SNAPSHOT_ID.test(link.snapshot)) throw new Error(`not a snapshot id: ${JSON.stringify(link.snapshot)}`);
  return sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
    await tx.unsafe(`SET TRANSACTION SNAPSHOT '${link.snapshot}'`);
    const [row] = await tx<Array<{ body: string }>>`SELECT body FROM receipts WHERE seq = ${link.seq}`;
    return row === undefined ? null : linkHash(link.prevHash, row.body);
  });
}
