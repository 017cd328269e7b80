import postgres from 'postgres';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/index.js';
import type { Database } from '../../src/store/postgres/database.js';
import { PostgresReceiptStore } from '../../src/store/postgres/postgres-receipts.js';
import { LARGE_RECEIPT_CHARACTERS, ReceiptWriterThread } from '../../src/store/receipt-writer-thread.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { makeReceipt } from './support.js';

// `hldp receipts verify` and GET /v1/receipts/verify walked the chain on PostgreSQL through a cursor on the store's own
// pool: the driver made each large row's text one string on the gateway's event loop, and the walk hashed it there (a
// 96 MB receipt: seconds of /healthz waiting). A large row's text is now read and hashed by the writer thread, within
// the walk's exported snapshot. The store's pool here records the longest value its driver parsed: what ran on the
// event loop.

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
  }, 60_000);
  afterEach(async () => {
    await store.close();
    await pool.end();
    await database.drop();
  });

  it('verifies it, never parsing the large text on the store\'s own pool', async () => {
    longest = 0;
    expect(await store.verify()).toMatchObject({ ok: true, checked: 3, head: { seq: 3 } });
    expect(longest).toBeLessThan(LARGE_RECEIPT_CHARACTERS);
  }, 60_000);

  it('names an edit of the large text at its seq', async () => {
    const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    await sql`UPDATE receipts SET body = replace(body, '"output":"\\u0000', '"output":"\\u0001') WHERE id = 'huge'`;
    await sql.end();
    expect(await store.verify()).toMatchObject({ ok: false, checked: 1, broken: { seq: 2, reason: 'hash_mismatch' } });
  }, 60_000);
});
