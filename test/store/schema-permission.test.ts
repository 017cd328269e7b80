import postgres from 'postgres';
import { afterEach, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { runCli } from '../helpers/run-cli.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

// a superuser's connection to the database at `url` (the shared cluster's own user)
async function asSuperuser(url: string, statements: string[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    for (const statement of statements) await sql.unsafe(statement);
  } finally {
    await sql.end();
  }
}

describeWithPostgres('a gateway role that does not own its PostgreSQL database (review userW, W7)', () => {
  const home = useCliHome();

  it('stops naming the role, the database and the ALTER DATABASE or GRANT that fixes it; after the ALTER it opens', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const name = new URL(database.url).pathname.slice(1);
    const role = `gw_${Math.random().toString(36).slice(2, 10)}`;
    // as the README's old commands did: a superuser creates the database, the gateway's role may only connect
    await asSuperuser(database.url, [`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`, `REVOKE CONNECT ON DATABASE "${name}" FROM PUBLIC`, `GRANT CONNECT ON DATABASE "${name}" TO ${role}`]);
    cleanups.push(() => asSuperuser(database.url.replace(/\/[^/]*$/, '/postgres'), [`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, `DROP ROLE IF EXISTS ${role}`]));
    const url = new URL(database.url);
    url.username = role;
    url.password = 'pw';
    const env = { ...home.env, HLDP_STORE_URL: url.toString() };

    const refused = await runCli(['receipts', 'verify'], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('permission denied for schema public');
    expect(refused.stderr).toContain(`ALTER DATABASE ${name} OWNER TO ${role}`);
    expect(refused.stderr).toContain(`GRANT CREATE ON SCHEMA public TO ${role}`);
    expect(refused.stderr).not.toContain(':pw@');

    await asSuperuser(database.url, [`ALTER DATABASE "${name}" OWNER TO ${role}`]);
    const opened = await runCli(['receipts', 'verify'], { env });
    // the store it walked is named, its password hidden (review userZ4, F7)
    expect(opened.stderr).toBe(`no receipts in PostgreSQL ${url.toString().replace(':pw@', ':***@')}\n`);
    expect(opened.code).toBe(0);
  });
});
