import postgres from 'postgres';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/index.js';
import type { Database } from '../../src/store/postgres/database.js';
import { PostgresReceiptStore } from '../../src/store/postgres/postgres-receipts.js';
import { ReceiptWriterThread } from '../../src/store/receipt-writer-thread.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { makeReceipt } from './support.js';

// `hldp receipts verify` and GET /v1/receipts/verify walked the chain on PostgreSQL through a cursor on the store's own
// pool: the driver made each large row's text one string on the gateway's event loop, and the walk hashed it there (a
// 96 MB receipt: seconds of /healthz waiting). Then a large row was hashed by the writer thread, but rows under 256 KiB
// were still read, 10,000 to a cursor page, parsed and hashed on the pool's event loop (200 KB receipts: 2 GB at once).
// The whole walk now runs in a thread of its own, a page bounded in bytes at a time. The store's pool here records the
// longest value its driver parsed: what ran on the event loop.

let database: { url: string; drop: () => Promise<void> };
let longest: number;
let pool: Database;
let thread: ReceiptWriterThread;
let store: PostgresReceiptStore;

describeWithPostgres('a walk of the receipt chain on PostgreSQL with large receipts in it', () => {
  beforeEach(async () => {
    database = await createTestDatabase();
    // the migrations
    await (await openPostgresStore({ url: database.url })).close();
    longest = 0;
    const bigint = { to: 20, from: [20], serialize: String, parse: Number };
    const parsed = (value: unknown): unknown => {
      if (typeof value === 'string') longest = Math.max(longest, value.length);
      return value;
    };
    pool = postgres(database.url, { max: 2, onnotice: () => undefined, types: { bigint }, transform: { value: { from: parsed } } }) as unknown as Database;
    // connected before the first save, as the store's migrations connect it: the driver learns the array types then
    await pool`SELECT 1`;
    thread = new ReceiptWriterThread({ postgres: { url: database.url } });
    store = new PostgresReceiptStore(pool, { now: Date.now, thread });
    await store.save(makeReceipt({ id: 'small-1', output: 'first' }));
    await store.save(makeReceipt({ id: 'huge', output: '\u0000'.repeat(1_000_000) }));
    await store.save(makeReceipt({ id: 'small-2', output: 'after' }));
    await store.save(makeReceipt({ id: 'middling', output: 'm'.repeat(200_000) }));
  }, 60_000);
  afterEach(async () => {
    await store.close();
    await pool.end();
    await database.drop();
  });

  it('verifies it, never parsing a receipt\'s text on the store\'s own pool', async () => {
    longest = 0;
    expect(await store.verify()).toMatchObject({ ok: true, checked: 4, head: { seq: 4 } });
    // the longest value the walk could leave on the pool is a hash (64 characters)
    expect(longest).toBeLessThan(1000);
  }, 60_000);

  it('names an edit of the large text at its seq', async () => {
    const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    await sql`UPDATE receipts SET body = replace(body, '"output":"\\u0000', '"output":"\\u0001') WHERE id = 'huge'`;
    await sql.end();
    expect(await store.verify()).toMatchObject({ ok: false, checked: 1, broken: { seq: 2, reason: 'hash_mismatch' } });
  }, 60_000);
});
