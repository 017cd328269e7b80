import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAIL_STDERR, makeConsoleRepository } from '../helpers/console-repo.js';
import { makeTempDir } from '../helpers/git.js';
import { HLDP_BIN, runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKENS = { admin: 'mcp-events-admin-token-0123456789', carol: 'mcp-events-carol-token-0123456789', dave: 'mcp-events-dave-token-0123456789' } as const;
type Who = keyof typeof TOKENS;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const CONFIG = `principals:
  carol: { roles: [agent], token_sha256: ${digest(TOKENS.carol)} }
  dave: { roles: [agent], token_sha256: ${digest(TOKENS.dave)} }
`;

interface Page {
  events: Array<{ id: number; type: string; data: Record<string, any> }>;
  last: number;
  reset?: { reason: string };
}

async function read(client: Client, uri: string): Promise<Page> {
  const result = await client.readResource({ uri });
  expect(result.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse(String((result.contents[0] as { text: string }).text)) as Page;
}

/** Counts the client's `notifications/resources/updated` for a URI, and waits for the next. */
function updates(client: Client): { count: () => number; next: () => Promise<string> } {
  let count = 0;
  let waiting: Array<(uri: string) => void> = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    count += 1;
    for (const wake of waiting.splice(0)) wake(notification.params.uri);
  });
  return { count: () => count, next: () => new Promise((resolve) => waiting.push(resolve)) };
}

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let server: ServiceProcess;
const clients: Client[] = [];

beforeAll(async () => {
  temp = await makeTempDir('hldp-events-mcp-');
  const repo = await makeConsoleRepository(temp.path);
  await writeFile(join(temp.path, 'config.yaml'), CONFIG);
  env = { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.admin };
  server = await spawnService(['serve', '--port', '0', '--config', join(temp.path, 'config.yaml')], env, / at (http:\/\/[\d.:]+)\n/);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await server?.stop();
  await temp?.cleanup();
});

async function connect(who: Who): Promise<Client> {
  const client = new Client({ name: 'events-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKENS[who]}` } } }));
  clients.push(client);
  return client;
}

async function fail(who: Who): Promise<string> {
  const response = await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS[who]}` }, body: JSON.stringify({ tool: 'fail', params: {} }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

describe('the event stream over MCP (hldp tail for MCP clients), against a real hldp serve', () => {
  it('describes hldp://events as a resource template and a subscribable resource', async () => {
    const client = await connect('carol');
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'hldp://events{?after,types,limit}', name: 'events', mimeType: 'application/json' })]);
    // the skill index is left as it was
    expect((await client.listResources()).resources.every((resource) => resource.uri.startsWith('skill://'))).toBe(true);
  });

  it('notifies a subscriber of new events and reads them after an id: its own calls only, with the raw error', async () => {
    const carol = await connect('carol');
    const start = (await read(carol, 'hldp://events?types=receipt.stored')).last;
    const heard = updates(carol);
    await carol.subscribeResource({ uri: 'hldp://events?types=failures' });
    // the client opens its notification stream (GET) after initializing: until a notification arrives, keep failing
    const mine: string[] = [];
    const theirs: string[] = [];
    for (let tries = 0; heard.count() === 0; tries += 1) {
      expect(tries).toBeLessThan(100);
      const next = heard.next();
      theirs.push(await fail('dave'));
      mine.push(await fail('carol'));
      await Promise.race([next, new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    const notified = heard.next();
    mine.push(await fail('carol'));
    expect(await notified).toBe('hldp://events?types=failures');
    const page = await read(carol, `hldp://events?after=${start}&types=receipt.stored&limit=500`);
    expect(page.events.map((event) => event.data.receipt)).toEqual(mine);
    expect(page.events.every((event) => event.data.caller === 'carol' && event.data.ok === false && event.data.error === FAIL_STDERR)).toBe(true);
    expect(page.events.map((event) => event.id)).toEqual([...page.events.map((event) => event.id)].sort((a, b) => a - b));
    expect(page.last).toBeGreaterThanOrEqual(page.events.at(-1)!.id);
    // nothing of dave's, even asked for by id
    expect(JSON.stringify(page)).not.toContain(theirs[0]!);
    // one page at a time: limit 1, then after its last
    const first = await read(carol, `hldp://events?after=${start}&types=receipt.stored&limit=1`);
    expect(first.events.map((event) => event.data.receipt)).toEqual([mine[0]]);
    expect((await read(carol, `hldp://events?after=${first.last}&types=receipt.stored&limit=1`)).events.map((event) => event.data.receipt)).toEqual([mine[1]]);
    // an unsubscribed client hears nothing more
    await carol.unsubscribeResource({ uri: 'hldp://events?types=failures' });
    const before = heard.count();
    await fail('carol');
    await read(carol, 'hldp://events');
    expect(heard.count()).toBe(before);
  });

  it('answers a malformed query or a subscription to anything else with an error that says what to send, and an id never given with reset', async () => {
    const client = await connect('carol');
    // each a caller's mistake, as JSON-RPC says one (-32602 invalid params; -32002 MCP's resource not found), not
    // -32603, an internal error of the server's (review userX, X6)
    await expect(client.readResource({ uri: 'hldp://events?after=yesterday' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/after must be the id of an event/) });
    await expect(client.readResource({ uri: 'hldp://events?types=receipts' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/unknown event type 'receipts'/) });
    await expect(client.readResource({ uri: 'hldp://events?since=1' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/use after, types and limit/) });
    await expect(client.subscribeResource({ uri: 'hldp://events?types=receipts' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.subscribeResource({ uri: 'skill://anything' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/only hldp:\/\/events/) });
    await expect(client.readResource({ uri: 'skill://no-such-skill' })).rejects.toMatchObject({ code: -32002, message: expect.stringMatching(/skills are read as skill:\/\/<name>/) });
    const future = await read(client, 'hldp://events?after=999999999');
    expect(future.events).toEqual([]);
    expect(future.reset?.reason).toMatch(/never given/);
  });
});

/** The event hub's subscribers in the serving process, as GET /metrics reports them. */
async function hubSubscribers(): Promise<number> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKENS.admin}` } });
  expect(response.status).toBe(200);
  const line = (await response.text()).split('\n').find((each) => each.startsWith('hldp_event_subscribers '));
  expect(line).toBeDefined();
  return Number(line!.split(' ')[1]);
}

/** Reads /metrics until the hub is back to `count` subscribers (a closed connection lets go asynchronously), at most 100 reads. */
async function settlesAt(count: number): Promise<number> {
  let now = await hubSubscribers();
  for (let tries = 0; now !== count && tries < 100; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    now = await hubSubscribers();
  }
  return now;
}

describe('hldp://events subscriptions leave no hub subscriber behind (real hldp serve, real SDK client)', () => {
  it('takes concurrent subscribes to one URI as one subscription, and lets all go when the connection ends', async () => {
    const before = await hubSubscribers();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKENS.carol}` } } });
    const client = new Client({ name: 'events-leak-test', version: '0.0.0' });
    await client.connect(transport);
    // one JSON-RPC batch: the server starts every request of it in the same turn, so each subscribe runs before any finished
    const batch = [...Array.from({ length: 12 }, () => 'hldp://events?types=failures'), ...Array.from({ length: 6 }, () => 'hldp://events')]
      .map((uri, at) => ({ jsonrpc: '2.0', id: 1000 + at, method: 'resources/subscribe', params: { uri } }));
    const answer = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.carol}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18' },
      body: JSON.stringify(batch),
    });
    expect(answer.status).toBe(200);
    const body = await answer.text();
    for (const { id } of batch) expect(body).toContain(`"id":${id}`);
    expect(body).not.toContain('"error"');
    expect(await hubSubscribers()).toBe(before + 2);
    await client.unsubscribeResource({ uri: 'hldp://events' });
    expect(await hubSubscribers()).toBe(before + 1);
    // subscribes still in flight when the session ends (DELETE): none of them may outlive it
    const inFlight = Array.from({ length: 8 }, (_, at) => client.subscribeResource({ uri: `hldp://events?types=failures&limit=${at + 1}` }).catch(() => undefined));
    await transport.terminateSession();
    await Promise.all(inFlight);
    await client.close();
    expect(await settlesAt(before)).toBe(before);
  });

  it(`refuses more than ${16} distinct subscriptions on one connection with an error that says what to do`, async () => {
    const before = await hubSubscribers();
    const client = await connect('carol');
    for (let at = 1; at <= 16; at += 1) await client.subscribeResource({ uri: `hldp://events?limit=${at}` });
    await expect(client.subscribeResource({ uri: 'hldp://events?limit=17' })).rejects.toThrow(/at most 16 hldp:\/\/events subscriptions per connection; unsubscribe/);
    // one already held is no new subscription
    await client.subscribeResource({ uri: 'hldp://events?limit=16' });
    expect(await hubSubscribers()).toBe(before + 16);
    await client.unsubscribeResource({ uri: 'hldp://events?limit=1' });
    await client.subscribeResource({ uri: 'hldp://events?limit=17' });
    expect(await hubSubscribers()).toBe(before + 16);
  });
});

describe('the event stream over MCP from hldp mcp (stdio), a real process', () => {
  it('notifies a subscriber of a failing call another process (the CLI) made on the same store', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HLDP_BIN, 'mcp'],
      env: { ...(process.env as Record<string, string>), HLDP_REPO: env.HLDP_REPO!, HLDP_CACHE_DIR: env.HLDP_CACHE_DIR!, HLDP_DATA_DIR: env.HLDP_DATA_DIR!, HLDP_WORKSPACE: env.HLDP_WORKSPACE!, HLDP_LOG_LEVEL: 'warn' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'events-test', version: '0.0.0' });
    await client.connect(transport);
    clients.push(client);
    const start = (await read(client, 'hldp://events')).last;
    const heard = updates(client);
    await client.subscribeResource({ uri: 'hldp://events' });
    const notified = heard.next();
    const { HLDP_API_TOKEN: _token, ...local } = env;
    const cli = await runCli(['call', 'fail', '--json'], { env: local });
    expect(cli.code).toBe(1);
    const id = JSON.parse(cli.stdout).id;
    expect(await notified).toBe('hldp://events');
    const page = await read(client, `hldp://events?after=${start}`);
    expect(page.events).toContainEqual(expect.objectContaining({ type: 'receipt.stored', data: expect.objectContaining({ receipt: id, ok: false, error: FAIL_STDERR }) }));
  });

  it('refuses a long or non-canonical events URI, and takes spellings of one query as one subscription (review Z16-2)', async () => {
    const before = await hubSubscribers();
    const client = await connect('carol');
    // 16 of these, each a little longer, were 16 subscriptions whose 900,000-character URIs went out with every event
    await expect(client.subscribeResource({ uri: `hldp://events?limit=${'0'.repeat(1000)}1` })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/at most 256 characters, got 1021/) });
    await expect(client.subscribeResource({ uri: 'hldp://events?limit=01' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/limit must be an integer from 1 to 500 \(without leading zeros\), got '01'/) });
    await expect(client.readResource({ uri: 'hldp://events?after=007' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/without leading zeros/) });
    await expect(client.subscribeResource({ uri: 'hldp://events?types=failures,failures' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/types lists 'failures' more than once/) });
    await expect(client.subscribeResource({ uri: 'hldp://events?limit=1&limit=2' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/'limit' is given more than once/) });
    const spellings = ['hldp://events?types=failures,scan.completed&limit=5', 'hldp://events?limit=5&types=scan.completed,failures', 'hldp://events?types=scan.completed,%20failures&limit=5', 'hldp://events?limit=5&types=failures,scan.completed,'];
    for (const uri of spellings) await client.subscribeResource({ uri });
    expect(await hubSubscribers()).toBe(before + 1);
    // the first spelling is the one its notifications name; any spelling ends it
    const heard = updates(client);
    for (let tries = 0; heard.count() === 0; tries += 1) {
      expect(tries).toBeLessThan(100);
      const next = heard.next();
      await fail('carol');
      expect(await Promise.race([next, new Promise((resolve) => setTimeout(resolve, 200, spellings[0]))])).toBe(spellings[0]);
    }
    await client.unsubscribeResource({ uri: spellings[1]! });
    expect(await hubSubscribers()).toBe(before);
  });
});
