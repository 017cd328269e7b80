import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { openSse, type SseClient } from '../helpers/sse-client.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { load, makeWorld, startInstance, type ScaleWorld } from '../scale/support.js';

const TOKENS = { admin: 'events-admin-token-0123456789', alice: 'events-alice-token-0123456789', bob: 'events-bob-token-0123456789' };
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const CONFIG = `api_token: ${TOKENS.admin}
principals:
  alice: { roles: [agent], token_sha256: ${digest(TOKENS.alice)} }
  bob: { roles: [agent], token_sha256: ${digest(TOKENS.bob)} }
`;
const bearer = (who: keyof typeof TOKENS): Record<string, string> => ({ authorization: `Bearer ${TOKENS[who]}` });

async function call(url: string, who: keyof typeof TOKENS, word: string): Promise<{ id: string; ok: boolean }> {
  const response = await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(who) }, body: JSON.stringify({ tool: 'echo', params: { word } }) });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; ok: boolean };
}

/** Waits until `client` holds `count` receipt.stored events, and gives them. */
async function receipts(client: SseClient, count: number): Promise<Array<{ id: number; type: string; data: Record<string, any> }>> {
  const stored = () => client.events().filter((event) => event.type === 'receipt.stored');
  await client.next(() => stored().length >= count, 60_000);
  return stored();
}

describeWithPostgres('GET /v1/events across two hldp serve processes on one PostgreSQL database', () => {
  let world: ScaleWorld;
  let database: { url: string; drop: () => Promise<void> };
  let a: ServiceProcess;
  let b: ServiceProcess;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    world = await makeWorld();
    database = await createTestDatabase();
    [a, b] = await Promise.all([startInstance(world, database.url, { config: CONFIG }), startInstance(world, database.url, { config: CONFIG })]);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await Promise.allSettled([a, b].filter(Boolean).map((instance) => instance.stop()));
    await database?.drop();
    await world?.cleanup();
  });

  const open = async (url: string, who: keyof typeof TOKENS, headers: Record<string, string> = {}): Promise<SseClient> => {
    const stream = await openSse(`${url}/v1/events?types=receipt.stored`, { ...bearer(who), ...headers });
    streams.push(stream);
    expect(stream.status).toBe(200);
    return stream;
  };

  it('delivers every call made at either instance to a subscriber of one, once each, in one id order; a principal sees only its own', async () => {
    const [adminAtB, aliceAtB, bobAtA] = [await open(b.url, 'admin'), await open(b.url, 'alice'), await open(a.url, 'bob')];
    // alice calls through A, bob through B: every event a subscriber gets crossed from the other instance or not
    const answers = await load(60, 6, (index) => (index % 2 ? call(a.url, 'alice', `a${index}`) : call(b.url, 'bob', `b${index}`)));
    const all = await receipts(adminAtB, 60);
    expect(all.map((event) => event.data.receipt).sort()).toEqual(answers.map((answer) => answer.id).sort());
    const ids = all.map((event) => event.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(60);
    const aliceIds = new Set(answers.filter((_answer, index) => index % 2).map((answer) => answer.id));
    const mine = await receipts(aliceAtB, 30);
    expect(mine.map((event) => event.data.receipt).sort()).toEqual([...aliceIds].sort());
    expect(mine.every((event) => event.data.caller === 'alice')).toBe(true);
    const bobs = await receipts(bobAtA, 30);
    expect(bobs.every((event) => event.data.caller === 'bob' && !aliceIds.has(event.data.receipt))).toBe(true);
    // the admin's stream ended with the last of them: nothing was held back for alice or bob
    expect(adminAtB.events().filter((event) => event.type === 'receipt.stored')).toHaveLength(60);
  });

  it('resumes at the other instance with Last-Event-ID from the first: exactly the events after it, in the same order', async () => {
    const atB = await open(b.url, 'admin');
    const answers = await load(20, 4, (index) => call(index % 2 ? a.url : b.url, 'alice', `r${index}`));
    const seen = await receipts(atB, 20);
    expect(seen.map((event) => event.data.receipt).sort()).toEqual(answers.map((answer) => answer.id).sort());
    const resumeAfter = seen[7]!.id;
    const atA = await open(a.url, 'admin', { 'last-event-id': String(resumeAfter) });
    const resumed = await receipts(atA, 12);
    expect(resumed.map((event) => event.id)).toEqual(seen.slice(8).map((event) => event.id));
    expect(resumed.map((event) => event.data)).toEqual(seen.slice(8).map((event) => event.data));
    expect(atA.messages.some((message) => message.event === 'reset')).toBe(false);
  });
});
