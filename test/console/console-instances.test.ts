import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { makeTempDir } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { makeWorld, startInstance, type ScaleWorld } from '../scale/support.js';

const CAROL = 'instances-carol-token-0123456789';
// principals only, no api_token: the case where each process used to sign cookies with a random key of its own
const CONFIG = `principals:\n  carol: { roles: [approver], token_sha256: ${createHash('sha256').update(CAROL).digest('hex')} }\n`;

/** Signs in at one instance; the cookie it sets. */
function signIn(url: string, token = CAROL): Promise<string> {
  return signInToConsole(url, token);
}

/** Whether an instance takes the cookie: the page as carol, or a redirect to the sign-in page. */
async function signedInAt(url: string, cookie: string): Promise<boolean> {
  const response = await fetch(`${url}/console/failures`, { headers: { cookie }, redirect: 'manual' });
  if (response.status === 303) return false;
  expect(response.status).toBe(200);
  expect(await response.text()).toContain('<span>carol</span>');
  return true;
}

/** Signs out at one instance with the sign-in's CSRF token, as the console's own page does. */
async function signOut(url: string, cookie: string): Promise<void> {
  const page = await (await fetch(`${url}/console/failures`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const response = await fetch(`${url}/console/sign-out`, {
    method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin }, body: new URLSearchParams({ _csrf: csrf }),
  });
  expect(response.status).toBe(303);
  expect(response.headers.get('set-cookie')).toMatch(/hldp_console=;/);
}

// each test starts two to four cold hldp serve processes, up to three times one after another: a cold start took over
// 25 s at load 17-20 on CI's 2 cores, and the rotation's two pairs and their stops ran past 60 s at load ~25
describe('console sign-ins across two hldp serve processes on one SQLite store, without an api_token', { timeout: 180_000 }, () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  const processes: ServiceProcess[] = [];

  /** `hldp serve` over the data folder `data`, with the config file `config` of the test's folder. */
  const serve = async (data: string, config = 'config.yaml'): Promise<ServiceProcess> => {
    const started = await spawnService(
      ['serve', '--port', '0', '--config', join(temp.path, config)],
      { HLDP_REPO: join(temp.path, 'repo'), HLDP_CACHE_DIR: join(temp.path, `cache-${processes.length}`), HLDP_DATA_DIR: join(temp.path, data), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'debug' },
      / at (http:\/\/[\d.:]+)\n/,
    );
    processes.push(started);
    return started;
  };

  beforeAll(async () => {
    temp = await makeTempDir('hldp-console-instances-');
    await makeConsoleRepository(temp.path);
    await writeFile(join(temp.path, 'config.yaml'), CONFIG);
  });
  afterAll(async () => {
    await Promise.allSettled(processes.map((each) => each.stop()));
    await temp?.cleanup();
  });

  it('accepts a cookie signed at one instance at the other (one key per deployment, made once in the store and never logged), and not at a deployment of its own', async () => {
    const [a, b] = await Promise.all([serve('shared'), serve('shared')]);
    const cookie = await signIn(a.url);
    expect(await signedInAt(b.url, cookie)).toBe(true);
    expect(await signedInAt(a.url, await signIn(b.url))).toBe(true);
    // a restart keeps the key: sign-ins outlive the process that made them
    await a.stop();
    const again = await serve('shared');
    expect(await signedInAt(again.url, cookie)).toBe(true);
    // another deployment (its own store) has its own key
    const elsewhere = await serve('elsewhere');
    expect(await signedInAt(elsewhere.url, cookie)).toBe(false);
    const database = new BetterSqlite3(join(temp.path, 'shared', 'receipts.db'), { readonly: true });
    const rows = database.prepare("SELECT name, value FROM deployment_secrets").all() as Array<{ name: string; value: string }>;
    database.close();
    expect(rows.map((row) => row.name)).toEqual(['console.session_key']);
    expect(Buffer.from(rows[0]!.value, 'base64')).toHaveLength(32);
    for (const each of processes) expect(each.stderr()).not.toContain(rows[0]!.value);
  });

  it("ends a principal's sign-ins at every instance when its token is rotated (the cookie's signature covers the token's digest)", async () => {
    // a config file of its own: the rotated token never reaches the other tests, even when this one fails half-way
    await writeFile(join(temp.path, 'rotation.yaml'), CONFIG);
    const [a, b] = await Promise.all([serve('rotated', 'rotation.yaml'), serve('rotated', 'rotation.yaml')]);
    const stolen = await signIn(a.url);
    expect(await signedInAt(b.url, stolen)).toBe(true);
    // the operator rotates carol's token and restarts both instances (same store, same signing key)
    const rotated = 'instances-carol-rotated-9876543210';
    await writeFile(join(temp.path, 'rotation.yaml'), CONFIG.replace(createHash('sha256').update(CAROL).digest('hex'), createHash('sha256').update(rotated).digest('hex')));
    await Promise.all([a.stop(), b.stop()]);
    const [c, d] = await Promise.all([serve('rotated', 'rotation.yaml'), serve('rotated', 'rotation.yaml')]);
    expect(await signedInAt(c.url, stolen)).toBe(false);
    expect(await signedInAt(d.url, stolen)).toBe(false);
    // a sign-in with the new token works at both
    const fresh = await signIn(c.url, rotated);
    expect(await signedInAt(d.url, fresh)).toBe(true);
  });

  it('refuses a cookie signed out at one instance at the other too, and after a restart, while other sign-ins go on', async () => {
    const [a, b] = await Promise.all([serve('signed-out'), serve('signed-out')]);
    const copied = await signIn(a.url);
    const other = await signIn(b.url);
    expect(await signedInAt(b.url, copied)).toBe(true);
    await signOut(a.url, copied);
    expect(await signedInAt(a.url, copied)).toBe(false);
    expect(await signedInAt(b.url, copied)).toBe(false);
    expect(await signedInAt(a.url, other)).toBe(true);
    await b.stop();
    expect(await signedInAt((await serve('signed-out')).url, copied)).toBe(false);
  });
});

describeWithPostgres('console sign-ins across two hldp serve processes on one PostgreSQL database, without an api_token', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  const instances: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await makeWorld();
    database = await createTestDatabase();
    instances.push(...(await Promise.all([startInstance(world, database.url, { config: CONFIG }), startInstance(world, database.url, { config: CONFIG })])));
  });
  afterAll(async () => {
    await Promise.allSettled(instances.map((instance) => instance.stop()));
    await database?.drop();
    await world?.cleanup();
  });

  it('accepts a cookie signed at one instance at the other', async () => {
    const [a, b] = instances as [ServiceProcess, ServiceProcess];
    expect(await signedInAt(b.url, await signIn(a.url))).toBe(true);
    expect(await signedInAt(a.url, await signIn(b.url))).toBe(true);
  });

  it('refuses a cookie signed out at one instance at the other', async () => {
    const [a, b] = instances as [ServiceProcess, ServiceProcess];
    const copied = await signIn(a.url);
    const other = await signIn(a.url);
    await signOut(b.url, copied);
    expect(await signedInAt(a.url, copied)).toBe(false);
    expect(await signedInAt(b.url, copied)).toBe(false);
    expect(await signedInAt(b.url, other)).toBe(true);
  });
});
