// An MCP session opened past its principal's bound trims that principal's least recently seen (review Z16-3); the trim
// picked the principal's rows by a JSON expression no index held, so it read every session of every principal at each
// opening (notes 56-57), and PostgreSQL's `IS NOT DISTINCT FROM` is no operator an index answers anyway. Schema step 18
// adds the index on that expression; a database made by step 17 with sessions in it is migrated when opened, its trim
// is then read through the index (the store's own statement, explained), and trims as before.
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore, openSqliteStore, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, type Store } from '../../src/store/index.js';
import { migratePostgres } from '../../src/store/postgres/postgres-migrations.js';
import { postgresMcpSessionTrim } from '../../src/store/postgres/postgres-mcp-sessions.js';
import { SQLITE_MCP_SESSION_TRIM } from '../../src/store/sqlite-mcp-sessions.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { makeStoreFolder } from './support.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const STEP = 18;
const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-client', version: '1.0.0' } };

// sessions written by a gateway of step 17: two of alice's, one of bob's, two opened without credentials
const OLD_ROWS: Array<[string, string, number]> = [
  ['alice-1', JSON.stringify({ principal: 'alice' }), 1_000],
  ['alice-2', JSON.stringify({ principal: 'alice' }), 2_000],
  ['bob-1', JSON.stringify({ principal: 'bob' }), 1_500],
  ['anonymous-1', '{}', 1_000],
  ['anonymous-2', '{}', 2_000],
];

/** After the migration: the store trims as it did, each principal's rows alone. */
async function trimsByPrincipal(store: Store): Promise<void> {
  await store.mcpSessions.create({ id: 'alice-3', initialize, options: { principal: 'alice' }, keep: 2 });
  await store.mcpSessions.create({ id: 'anonymous-3', initialize, options: {}, keep: 2 });
  const held = async (ids: string[]) => (await Promise.all(ids.map(async (id) => ((await store.mcpSessions.get(id)) ? id : undefined)))).filter(Boolean);
  expect(await held(['alice-1', 'alice-2', 'alice-3', 'bob-1', 'anonymous-1', 'anonymous-2', 'anonymous-3'])).toEqual(['alice-2', 'alice-3', 'bob-1', 'anonymous-2', 'anonymous-3']);
}

describe('a SQLite store of schema step 17 holding MCP sessions', () => {
  it('is migrated when opened: the per-principal trim reads its index, and trims as before', async () => {
    const folder = await makeStoreFolder();
    cleanups.push(folder.cleanup);
    const path = join(folder.path, 'hldp.sqlite');
    const old = new BetterSqlite3(path);
    for (const migration of SQLITE_MIGRATIONS.slice(0, STEP - 1)) {
      if (typeof migration.up === 'string') old.exec(migration.up);
      else migration.up(old);
    }
    old.pragma(`user_version = ${STEP - 1}`);
    for (const [id, options, seen] of OLD_ROWS) old.prepare('INSERT INTO mcp_sessions (id, initialize, options, created_ms, seen_ms) VALUES (?, ?, ?, ?, ?)').run(id, JSON.stringify(initialize), options, seen, seen);
    old.close();

    const store = openSqliteStore({ path });
    cleanups.push(() => store.close());
    const database = new BetterSqlite3(path, { readonly: true });
    cleanups.push(async () => database.close());
    expect(database.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    for (const principal of ['alice', null]) {
      const plan = database.prepare<[string | null, string, number], { detail: string }>(`EXPLAIN QUERY PLAN ${SQLITE_MCP_SESSION_TRIM}`).all(principal, 'new', 1);
      expect(plan.map((step) => step.detail), String(principal)).toContainEqual(expect.stringMatching(/^SEARCH mcp_sessions USING INDEX mcp_sessions_by_principal \(<expr>=\?/));
    }
    await trimsByPrincipal(store);
  });
});

describe('a SQLite store set back to step 17 by hand, its step-18 index left in place', () => {
  it('opens: step 18 is applied again over the index that is there, as PostgreSQL\'s step does', async () => {
    const folder = await makeStoreFolder();
    cleanups.push(folder.cleanup);
    const path = join(folder.path, 'hldp.sqlite');
    await openSqliteStore({ path }).close();
    const rolled = new BetterSqlite3(path);
    rolled.pragma(`user_version = ${STEP - 1}`);
    rolled.close();

    const store = openSqliteStore({ path });
    cleanups.push(() => store.close());
    const database = new BetterSqlite3(path, { readonly: true });
    cleanups.push(async () => database.close());
    expect(database.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    await store.mcpSessions.create({ id: 'alice-1', initialize, options: { principal: 'alice' }, keep: 2 });
    expect(await store.mcpSessions.get('alice-1')).toBeTruthy();
  });
});

describeWithPostgres('a PostgreSQL store of schema step 17 holding MCP sessions', () => {
  it('is migrated when opened: the per-principal trim reads its index, and trims as before', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const raw = postgres(database.url, { max: 1, onnotice: () => undefined });
    cleanups.push(() => raw.end());
    await migratePostgres(raw, Date.now, POSTGRES_MIGRATIONS.slice(0, STEP - 1));
    for (const [id, options, seen] of OLD_ROWS) await raw`INSERT INTO mcp_sessions (id, initialize, options, created_ms, seen_ms) VALUES (${id}, ${JSON.stringify(initialize)}, ${options}, ${seen}, ${seen})`;

    const store = await openPostgresStore({ url: database.url });
    cleanups.push(() => store.close());
    expect(await raw`SELECT max(version) AS version FROM schema_migrations`).toEqual([{ version: POSTGRES_MIGRATIONS.length }]);
    // five rows are read faster whole: the plan is asked with that way off, so it names the index wherever one answers
    await raw.begin(async (transaction) => {
      await transaction`SET LOCAL enable_seqscan = off`;
      for (const principal of ['alice', null]) {
        const plan = await transaction.unsafe(`EXPLAIN ${postgresMcpSessionTrim(principal)}`, principal === null ? ['new', 1] : ['new', 1, principal]);
        expect(plan.map((row) => String(row['QUERY PLAN'])).join('\n'), String(principal)).toMatch(/Index (Only )?Scan( Backward)? using mcp_sessions_by_principal on mcp_sessions|Bitmap Index Scan on mcp_sessions_by_principal/);
      }
    });
    await trimsByPrincipal(store);
  });
});
