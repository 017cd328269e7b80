import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { makeWorld, post, startInstance, type ScaleWorld } from './support.js';

/** A webhook receiver on 127.0.0.1: records every POST; `/flaky` answers 500 to the first attempt of each delivery. */
function startReceiver(): Promise<WebhookReceiver> {
  const seen = new Set<string>();
  return startWebhookReceiver((post) => {
    const id = `${post.path} ${String(post.headers['x-hldp-delivery'])}`;
    const fail = post.path === '/flaky' && !seen.has(id);
    seen.add(id);
    return fail ? 500 : 204;
  });
}

/** What one instance's /metrics says it did with each delivery to target `index`: sent (2xx) or left to the instance that claimed it. */
async function dealtWith(instance: ServiceProcess, index: number, port: number): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const count = (name: string): number => {
    const line = text.split('\n').find((row) => row.startsWith(`${name}{target="${index} 127.0.0.1:${port}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  return count('hldp_notifications_delivered_total') + count('hldp_notifications_skipped_total');
}

/** Polls until both instances have dealt with `count` deliveries each to target `index`: by then a second POST of any would have come. */
async function untilBothDealt(instances: ServiceProcess[], index: number, port: number, count: number): Promise<void> {
  for (let tries = 0; tries < 600; tries += 1) {
    const totals = await Promise.all(instances.map((instance) => dealtWith(instance, index, port)));
    if (totals.every((total) => total >= count)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the instances did not both deal with ${count} deliveries to target ${index}`);
}

// U11-12: each instance ran its own notifier over the shared event log, so an event recorded by one was POSTed by
// every instance: with 3 instances a person was paged 3 times for one failure. Now each (event, target) is claimed in
// the store first, and only the instance whose claim wins sends it (retries included).
describeWithPostgres('outgoing webhooks from two hldp serve processes on one PostgreSQL database', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let a: ServiceProcess;
  let b: ServiceProcess;

  beforeAll(async () => {
    world = await makeWorld();
    receiver = await startReceiver();
    database = await createTestDatabase();
    const config = [
      'events: { notify_attempts: 3, notify_backoff_ms: 50 }',
      'notify:',
      `  - { url: "${receiver.url}/hook", events: [failures] }`,
      `  - { url: "${receiver.url}/flaky", events: [failures] }`,
      '',
    ].join('\n');
    [a, b] = await Promise.all([startInstance(world, database.url, { config }), startInstance(world, database.url, { config })]);
  });
  afterAll(async () => {
    await Promise.allSettled([a, b].filter(Boolean).map((instance) => instance.stop()));
    await receiver?.close();
    await database?.drop();
    await world?.cleanup();
  });

  it('POSTs one failure recorded at one instance exactly once, though both instances see it', async () => {
    const rejected = await post(a.url, '/v1/call', { tool: 'no-such-tool', params: {} });
    expect(rejected.status).toBe(404);
    await untilBothDealt([a, b], 0, receiver.port, 1);
    const hooks = receiver.deliveries.filter((delivery) => delivery.path === '/hook');
    expect(hooks.map((delivery) => delivery.headers['x-hldp-event'])).toEqual(['call.rejected']);
    expect(JSON.parse(hooks[0]!.body)).toMatchObject({ type: 'call.rejected', data: { tool: 'no-such-tool' } });
  });

  it('POSTs each of many failures recorded at either instance once, and retries one only from the instance that claimed it', async () => {
    const before = receiver.deliveries.length;
    for (let index = 0; index < 6; index += 1) await post(index % 2 ? a.url : b.url, '/v1/call', { tool: `missing-${index}`, params: {} });
    // 1 + 6 events each, at both instances, for each target
    await untilBothDealt([a, b], 0, receiver.port, 7);
    await untilBothDealt([a, b], 1, receiver.port, 7);
    const since = receiver.deliveries.slice(before);
    const hookIds = since.filter((delivery) => delivery.path === '/hook').map((delivery) => delivery.headers['x-hldp-delivery']);
    expect(hookIds).toHaveLength(6);
    expect(new Set(hookIds).size).toBe(6);
    // the flaky target answers 500 to each first attempt: every event there was tried twice, attempts 1 and 2, never by two instances
    const flaky = receiver.deliveries.filter((delivery) => delivery.path === '/flaky');
    const attempts = new Map<string, string[]>();
    for (const delivery of flaky) attempts.set(String(delivery.headers['x-hldp-delivery']), [...(attempts.get(String(delivery.headers['x-hldp-delivery'])) ?? []), String(delivery.headers['x-hldp-attempt'])]);
    expect(attempts.size).toBe(7);
    for (const tried of attempts.values()) expect(tried).toEqual(['1', '2']);
    // the claims say which instance sent each: one row per (event, target)
    const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    try {
      const claims = await sql<Array<{ count: number; distinct: number }>>`SELECT count(*)::int AS count, count(DISTINCT (event_seq, target))::int AS distinct FROM notification_claims`;
      expect(claims[0]).toEqual({ count: 14, distinct: 14 });
    } finally {
      await sql.end();
    }
  });
});
