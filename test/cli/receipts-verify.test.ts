import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';
import { openPostgresStore, openSqliteStore } from '../../src/store/index.js';
import { makeReceipt } from '../store/support.js';

const home = useCliHome();

/** Three receipts, saved through the store the CLI reads (a call through the CLI costs a whole process each). */
async function threeReceipts(url?: string): Promise<void> {
  const store = url ? await openPostgresStore({ url }) : openSqliteStore({ path: join(home.path, 'data', 'receipts.db') });
  for (const word of ['one', 'two', 'three']) await store.receipts.save(makeReceipt({ output: `${word}\n` }));
  await store.close();
}

describe('hldp receipts verify on the SQLite file', () => {
  it('exits 0 and prints the head when nobody touched the receipts', async () => {
    await threeReceipts();
    const run = await runCli(['receipts', 'verify'], { env: home.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^intact: 3 receipts from genesis to head seq 3\nhead [0-9a-f]{64}\n$/);
  });

  it('exits 1 naming the first broken seq when an output was edited in the file', async () => {
    await threeReceipts();
    const database = new BetterSqlite3(join(home.path, 'data', 'receipts.db'));
    database.prepare("UPDATE receipts SET body = replace(body, 'two', 'TWO') WHERE seq = 2").run();
    database.close();
    const run = await runCli(['receipts', 'verify', '--json'], { env: home.env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, checked: 1, broken: { seq: 2, reason: 'hash_mismatch' } });
    const human = await runCli(['receipts', 'verify'], { env: home.env });
    expect(human.stdout).toMatch(/^BROKEN at seq 2 \(hash_mismatch\): receipt seq 2 does not hash to its stored hash/);
  });
});

describeWithPostgres('hldp receipts verify on PostgreSQL (HLDP_STORE_URL)', () => {
  it('reads the shared store, and names a deleted receipt', async () => {
    const database = await createTestDatabase();
    try {
      home.env.HLDP_STORE_URL = database.url;
      await threeReceipts(database.url);
      expect((await runCli(['receipts', 'verify'], { env: home.env })).stdout).toMatch(/^intact: 3 receipts/);
      const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
      await sql`DELETE FROM receipts WHERE seq = 1`;
      await sql.end();
      const run = await runCli(['receipts', 'verify', '--json'], { env: home.env });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, broken: { seq: 1, reason: 'missing' } });
      expect((await runCli(['receipts', '--json'], { env: home.env })).stdout).toContain('three');
    } finally {
      await database.drop();
    }
  });

  it('exits 2 with one line naming the server, not the password, when PostgreSQL is not there', async () => {
    const run = await runCli(['receipts', 'verify'], { env: { ...home.env, HLDP_STORE_URL: 'postgres://hldp:hunter2-secret@127.0.0.1:1/hldp' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^hldp receipts: cannot open the PostgreSQL store at postgres:\/\/hldp:\*\*\*@127\.0\.0\.1:1\/hldp: .*ECONNREFUSED.*\n$/);
    expect(run.stderr).not.toContain('hunter2');
  });
});
