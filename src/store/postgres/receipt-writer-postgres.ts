import type { WriterConnection } from '../receipt-writer-thread.js';
import { connect, type ConnectOptions } from './database.js';
import { appendPostgresReceipts } from './receipt-append.js';
import { summariseMatches } from './postgres-receipt-reads.js';

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
    text: async (id) => {
      const [row] = await sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
      return row?.body ?? null;
    },
    matches: (query) => summariseMatches(sql, query),
    close: () => sql.end({ timeout: 5 }),
  };
}
