import postgres from 'postgres';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { request, startTestServer } from '../helpers/http-server.js';

describeWithPostgres('hldp serve on PostgreSQL when the database stops answering', () => {
  let database: { url: string; drop: () => Promise<void> };
  let admin: postgres.Sql;
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let name: string;

  const cutOff = async (): Promise<void> => {
    await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`;
  };

  beforeEach(async () => {
    database = await createTestDatabase();
    name = new URL(database.url).pathname.slice(1);
    admin = postgres(database.url.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => undefined });
    server = await startTestServer('native-repo', { HLDP_STORE_URL: database.url });
  });
  afterEach(async () => {
    await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await server.cleanup();
    await admin.end();
    await database.drop();
  });

  it('still answers a call with its whole receipt, stating in its error that it was not stored; /healthz says degraded until the database is back', async () => {
    expect((await request(server, 'GET', '/healthz')).json).toMatchObject({ status: 'ok', store: { kind: 'postgres', ok: true } });
    await cutOff();

    const call = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo still ran' } } });
    expect(call.status).toBe(200);
    expect(call.json).toMatchObject({ ok: true, tool: 'shell-exec', output: 'still ran\n', error: expect.stringMatching(/^RECEIPT_NOT_STORED: this call ran, but its receipt could not be stored: .*not currently accepting connections/) });
    const health = await request(server, 'GET', '/healthz');
    expect(health.json).toMatchObject({ status: 'degraded', store: { kind: 'postgres', ok: false, error: expect.stringContaining('not currently accepting connections') } });

    const confirming = await request(server, 'POST', '/v1/call', { body: { tool: 'file-write', params: { path: 'x.txt', content: 'x' } } });
    expect(confirming.status).toBe(503);
    expect(confirming.json).toMatchObject({ code: 'STORE_UNAVAILABLE', error: expect.stringContaining('nothing ran') });

    await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    const stored = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo back' } } });
    expect(stored.json).toMatchObject({ ok: true, error: null });
    expect((await request(server, 'GET', `/v1/receipts/${stored.json.id}`)).json).toEqual(stored.json);
    expect((await request(server, 'GET', '/healthz')).json).toMatchObject({ status: 'ok', store: { ok: true } });
    expect((await request(server, 'GET', '/v1/receipts/verify')).json).toMatchObject({ ok: true, checked: 1 });
  });

  it('refuses the console, and a sign-out, while it cannot tell whether a sign-in was signed out; signs out once the database is back', async () => {
    const origin = new URL(server.url).origin;
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin };
    // no credentials configured: the sign-in button signs in the local operator
    const signIn = await fetch(`${server.url}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: form, body: '' });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await fetch(`${server.url}/console/failures`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const signOut = () => fetch(`${server.url}/console/sign-out`, { method: 'POST', redirect: 'manual', headers: { ...form, cookie }, body: new URLSearchParams({ _csrf: csrf }) });
    await cutOff();

    const view = await fetch(`${server.url}/console/failures`, { headers: { cookie }, redirect: 'manual' });
    expect(view.status).toBe(503);
    expect(await view.json()).toMatchObject({ code: 'STORE_UNAVAILABLE', error: expect.stringContaining('cannot tell whether this sign-in was signed out') });
    const refused = await signOut();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('set-cookie')).toBeNull();

    await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    const out = await signOut();
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/hldp_console=;/);
    expect((await fetch(`${server.url}/console/failures`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
  });
});
