// Review Z19, Z19-2: on PostgreSQL the sign-out list is pruned by the database's clock (e5cb9583), while a cookie's
// expiry was written and read by the gateway host's. Where the database's clock ran ahead, a signed-out cookie was
// accepted again for the last stretch of its life as soon as anyone else signed out (its row pruned as expired). The
// console now issues and reads sign-ins by the store's clock (`ConsoleBackend.now`, `Store.now`), the one it prunes by.
import { afterAll, expect, it } from 'vitest';
import { ConsoleSessions } from '../../src/console/security.js';
import { openPostgresStore } from '../../src/store/index.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';

describeWithPostgres("a console sign-out, the gateway host's clock 45 s behind the database's (review Z19, Z19-2)", () => {
  const stops: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  });

  it('stays signed out for as long as the cookie is accepted, after another sign-out prunes the list', async () => {
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    const real = Date.now;
    Date.now = () => real() - 45_000;
    stops.push(async () => {
      Date.now = real;
    });
    const store = await openPostgresStore({ url: database.url });
    stops.push(() => store.close());
    expect(store.now() - Date.now()).toBeGreaterThan(40_000);
    // a cookie with 30 s of its life left, issued and read as the console does: by the store's clock
    const sessions = new ConsoleSessions(Buffer.alloc(32, 1), 30_000);
    const { value, session } = sessions.issue('alice', 'binding', store.now());
    await store.signOuts.add(session.nonce, session.expires);
    const other = sessions.issue('bob', 'binding', store.now()).session;
    await store.signOuts.add(other.nonce, other.expires);
    // accepted by its signature and age, and still signed out: the console refuses it
    expect(sessions.read(value, () => 'binding', store.now())).toBeDefined();
    expect(await store.signOuts.has(session.nonce)).toBe(true);
  });
});
