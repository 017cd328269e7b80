import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { openPostgresStore, type Store } from '../../src/store/index.js';
import { connect } from '../../src/store/postgres/database.js';
import { PostgresBus } from '../../src/store/postgres/postgres-bus.js';
import { PostgresDeploymentSecrets } from '../../src/store/postgres/postgres-secrets.js';
import { describeWithPostgres, createTestDatabase } from '../helpers/postgres-suite.js';

// PostgreSQL checks no privilege for NOTIFY: a role that may only connect to the database (PUBLIC may, on a new one)
// and holds no grant on any table sent messages every instance believed — rescans, MCP sessions closed, event
// catch-ups (review S, S5). Now the instances sign them with a key of the store only their role reads.

const TOPICS = ['rescan', 'mcp_session_closed', 'events'];

describeWithPostgres('the PostgreSQL bus and another role of the database', () => {
  let database: { url: string; drop: () => Promise<void> };
  let reporterUrl: string;
  const role = `hldp_reporter_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const stores: Store[] = [];
  let reporter: postgres.Sql;
  const open = async (options: { warn?: (message: string, details: Record<string, unknown>) => void } = {}): Promise<Store> => {
    const store = await openPostgresStore({ url: database.url, ...options });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const admin = postgres(database.url, { max: 1, onnotice: () => undefined });
    // a reporting role: it may connect (PUBLIC's default CONNECT) and has no grant on anything
    await admin.unsafe(`CREATE ROLE "${role}" LOGIN`);
    await admin.end();
    reporterUrl = database.url.replace(/\/\/[^@]*@/, `//${role}@`);
    reporter = postgres(reporterUrl, { max: 1, onnotice: () => undefined });
  });
  afterEach(async () => {
    await Promise.allSettled(stores.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    await reporter?.end();
    await database?.drop();
    const admin = postgres(database.url.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => undefined });
    await admin.unsafe(`DROP ROLE IF EXISTS "${role}"`);
    await admin.end();
  });

  it("delivers none of the role's notifications to any topic, and an instance's message sent after them", async () => {
    const warnings: Array<{ message: string; details: Record<string, unknown> }> = [];
    const [receiver, sender] = await Promise.all([open({ warn: (message, details) => warnings.push({ message, details }) }), open()]);
    const received: Array<[string, Record<string, unknown>]> = [];
    let done: () => void = () => undefined;
    const last = new Promise<void>((resolve) => (done = resolve));
    for (const topic of TOPICS) {
      await receiver.bus.subscribe(topic, (message) => {
        received.push([topic, message]);
        if (message.last === 'from an instance') done();
      });
    }
    // as a brush-holder before signing sent them, and a flood of 200
    for (const topic of TOPICS) {
      const message = topic === 'rescan' ? { origin: 'x', reason: 'injected by role reporter' } : topic === 'events' ? { origin: 'x', last: 1 } : { id: 'someone-elses-session' };
      await reporter`SELECT pg_notify('hldp_bus', ${JSON.stringify({ topic, message })})`;
    }
    await reporter`SELECT pg_notify('hldp_bus', json_build_object('topic', 'events', 'message', json_build_object('origin', 'x', 'last', n))::text) FROM generate_series(1, 200) AS n`;
    // one bus connection delivers notifications in commit order: once this arrives, every one above was read
    await sender.bus.publish('events', { origin: 'y', last: 'from an instance' });
    await last;
    expect(received).toEqual([['events', { origin: 'y', last: 'from an instance' }]]);
    // one line for the flood, at once; its count comes a minute later
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.details).toEqual({ refused: { unsigned: 1 } });
  });

  it("keeps the signing key from the role: it reads no deployment secret, and the instances still hear each other", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const heard = new Promise<Record<string, unknown>>((resolve) => void b.bus.subscribe('rescan', resolve).then(() => a.bus.publish('rescan', { origin: 'a', reason: 'webhook' })));
    expect(await heard).toEqual({ origin: 'a', reason: 'webhook' });
    await expect(reporter`SELECT value FROM deployment_secrets`).rejects.toThrow(/permission denied/);
    const admin = postgres(database.url, { max: 1, onnotice: () => undefined });
    try {
      // whatever the database's default privileges, PUBLIC holds none on the secrets
      expect(await admin`SELECT count(*)::int AS n FROM information_schema.role_table_grants WHERE table_name = 'deployment_secrets' AND grantee = 'PUBLIC'`).toEqual([{ n: 0 }]);
      // two instances started at once made one key between them
      expect((await admin`SELECT name FROM deployment_secrets`).map((row) => row.name).filter((name) => /bus/.test(name))).toHaveLength(1);
    } finally {
      await admin.end();
    }
  });

  it("drops an instance's message the role heard (LISTEN needs no grant either) and sent again", async () => {
    const [receiver, sender] = await Promise.all([open(), open()]);
    const received: Array<Record<string, unknown>> = [];
    let arrive: () => void = () => undefined;
    let arrived = new Promise<void>((resolve) => (arrive = resolve));
    await Promise.all(['mcp_session_closed', 'rescan'].map((topic) => receiver.bus.subscribe(topic, (message) => {
      received.push(message);
      arrive();
    })));
    let heard: (payload: string) => void = () => undefined;
    const overheard = new Promise<string>((resolve) => (heard = resolve));
    const listening = await reporter.listen('hldp_bus', (payload) => heard(payload));
    try {
      await sender.bus.publish('mcp_session_closed', { id: 'session-1' });
      const payload = await overheard;
      await arrived;
      arrived = new Promise<void>((resolve) => (arrive = resolve));
      await reporter`SELECT pg_notify('hldp_bus', ${payload}) FROM generate_series(1, 3)`;
      await sender.bus.publish('rescan', { origin: 'a', reason: 'after the replays' });
      await arrived;
      expect(received).toEqual([{ id: 'session-1' }, { origin: 'a', reason: 'after the replays' }]);
    } finally {
      await listening.unlisten();
    }
  });

  it('reports a flood in counts, one report a period, not a line each', async () => {
    await open(); // the schema
    const reports: Array<Record<string, number>> = [];
    const sql = connect({ url: database.url, poolMax: 2 });
    const bus = new PostgresBus(sql, new PostgresDeploymentSecrets(sql, { now: Date.now }), { warn: (_message, details) => reports.push(details.refused as Record<string, number>), reportEveryMs: 300 });
    try {
      await bus.subscribe('events', () => undefined);
      await reporter`SELECT pg_notify('hldp_bus', json_build_object('topic', 'events', 'message', json_build_object('origin', 'x', 'last', n))::text) FROM generate_series(1, 500) AS n`;
      await reporter`SELECT pg_notify('hldp_bus', 'not even JSON')`;
      const total = (): number => reports.reduce((sum, report) => sum + Object.values(report).reduce((a, b) => a + b, 0), 0);
      await expect.poll(total, { timeout: 20_000, interval: 50 }).toBe(501);
      // the first at once, the rest counted: a few lines for 501 refusals
      expect(reports[0]).toEqual({ unsigned: 1 });
      expect(reports.length).toBeLessThan(10);
    } finally {
      await bus.close();
      await sql.end({ timeout: 1 });
    }
  });
});
