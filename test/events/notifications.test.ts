import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { makeTempDir } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { startWebhookReceiver, type ReceivedPost, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'notify-secret-0123456789';

type Delivery = ReceivedPost;

/** A local HTTP receiver: records every POST; `/flaky` answers 500 to the first attempt of each delivery, `/down` always 500. */
async function startReceiver(): Promise<WebhookReceiver & { floods: Flood[] }> {
  const floods: Flood[] = [];
  const seen = new Set<string>();
  const receiver = await startWebhookReceiver((post, outgoing) => {
    if (post.path === '/flood') return flood(outgoing, floods);
    const id = String(post.headers['x-hldp-delivery']);
    const fail = post.path === '/down' || (post.path === '/flaky' && !seen.has(id));
    seen.add(id);
    return fail ? 500 : 204;
  });
  return Object.assign(receiver, { floods });
}

/** What a receiver that answers 200 and then streams without end sent, and whether the gateway hung up. */
interface Flood {
  sent: number;
  closed: boolean;
}

// as fast as the gateway takes it, 64 KiB at a time, until the connection closes (a stream of gigabytes, review S, S1)
function flood(outgoing: import('node:http').ServerResponse, floods: Flood[]): undefined {
  const state: Flood = { sent: 0, closed: false };
  floods.push(state);
  outgoing.writeHead(200, { 'content-type': 'application/octet-stream' });
  const piece = Buffer.alloc(64 * 1024, 'f');
  outgoing.on('close', () => (state.closed = true));
  const pour = (): void => {
    while (!state.closed && outgoing.write(piece)) state.sent += piece.length;
    if (!state.closed) outgoing.once('drain', pour);
  };
  pour();
  return undefined;
}

const validSignature = (delivery: Delivery): boolean => {
  const expected = createHmac('sha256', SECRET).update(delivery.body).digest();
  const given = Buffer.from(String(delivery.headers['x-hldp-signature']), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 300; tries += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let temp: { path: string; cleanup: () => Promise<void> };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-notify-');
  receiver = await startReceiver();
  const repo = await makeConsoleRepository(temp.path);
  const config = join(temp.path, 'hldp.yaml');
  await writeFile(config, [
    'events: { notify_attempts: 3, notify_backoff_ms: 50 }',
    'notify:',
    // `note` asks its caller's own confirmation: a target hears of it only by asking for confirmation.requested (U11-15)
    `  - { url: "${receiver.url}/flaky", events: [failures, approval.requested, confirmation.requested], secret: "${SECRET}" }`,
    `  - { url: "${receiver.url}/down", events: [receipt.stored], secret_env: HLDP_TEST_NOTIFY_SECRET }`,
    `  - { url: "${receiver.url}/flood", events: [failures] }`,
    '',
  ].join('\n'));
  server = await spawnService(['serve', '--port', '0', '--config', config], {
    HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn',
    HLDP_TEST_NOTIFY_SECRET: SECRET,
  }, / at (http:\/\/[\d.:]+)\n/);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await temp?.cleanup();
});

describe('outgoing webhooks (notify)', () => {
  it('POSTs a failure to a local receiver with a valid HMAC-SHA256 signature, and retries after a 500', async () => {
    const call = await request(server, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
    await until(() => receiver.deliveries.filter((delivery) => delivery.path === '/flaky').length >= 2, 'two attempts at /flaky');
    const [first, second] = receiver.deliveries.filter((delivery) => delivery.path === '/flaky');
    expect(first!.headers['x-hldp-delivery']).toBe(second!.headers['x-hldp-delivery']);
    expect([first!.headers['x-hldp-attempt'], second!.headers['x-hldp-attempt']]).toEqual(['1', '2']);
    expect(first!.headers['x-hldp-event']).toBe('receipt.stored');
    for (const delivery of [first!, second!]) {
      expect(validSignature(delivery)).toBe(true);
      expect(delivery.headers['x-hub-signature-256']).toBe(`sha256=${delivery.headers['x-hldp-signature']}`);
    }
    const event = JSON.parse(second!.body);
    expect(event).toMatchObject({ type: 'receipt.stored', id: Number(second!.headers['x-hldp-delivery']), data: { receipt: call.json.id, ok: false, tool: 'fail' } });
  });

  it('reads no more than a little of a receiver that answers without end, and hangs up (review S, S1)', async () => {
    await request(server, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
    await until(() => receiver.floods.length > 0 && receiver.floods[0]!.closed, 'the gateway to hang up on /flood');
    // 64 KiB read, and what the sockets' buffers held: not the gigabytes the receiver would pour in for 10 s
    expect(receiver.floods[0]!.sent).toBeLessThan(16 * 1024 * 1024);
  });

  it('sends only the events a target asked for', async () => {
    const before = receiver.deliveries.length;
    await request(server, 'POST', '/v1/call', { body: { tool: 'note', params: { text: 'wait' } } });
    await until(() => receiver.deliveries.slice(before).some((delivery) => delivery.path === '/flaky' && delivery.headers['x-hldp-event'] === 'approval.requested'), 'approval.requested');
    // an ok call goes to the receipt.stored target, never to the failures one
    const ok = await request(server, 'POST', '/v1/call', { body: { tool: 'ok', params: {} } });
    await until(() => receiver.deliveries.some((delivery) => delivery.path === '/down' && delivery.body.includes(ok.json.id)), 'the ok receipt at /down');
    expect(receiver.deliveries.some((delivery) => delivery.path === '/flaky' && delivery.body.includes(ok.json.id))).toBe(false);
  });

  it('sends approval.requested with the head of large params and their size; the request keeps them whole', async () => {
    // an agent sends up to max_body_bytes (1 MiB) of params; a receiver that is down holds up to 1,000 events queued
    const text = 'p'.repeat(900_000);
    const before = receiver.deliveries.length;
    const pending = await request(server, 'POST', '/v1/call', { body: { tool: 'note', params: { text } } });
    expect(pending.status).toBe(202);
    await until(() => receiver.deliveries.slice(before).some((delivery) => delivery.path === '/flaky' && delivery.headers['x-hldp-event'] === 'approval.requested'), 'approval.requested');
    const delivery = receiver.deliveries.slice(before).find((item) => item.path === '/flaky' && item.headers['x-hldp-event'] === 'approval.requested')!;
    expect(delivery.body.length < 8192).toBe(true);
    const event = JSON.parse(delivery.body);
    const whole = JSON.stringify({ text }).length;
    expect(event.data).toMatchObject({ approval: pending.json.id, tool: 'note', params_chars: whole });
    // compared as booleans: a failure must not print 900,000 characters
    expect(event.data.params === `${JSON.stringify({ text }).slice(0, 4096)}[… ${whole - 4096} chars cut of ${whole} …]`).toBe(true);
    const approval = await request(server, 'GET', `/v1/approvals/${pending.json.id}`);
    expect(approval.json.approval.params.text === text).toBe(true);
  });

  it('counts a notification that failed for good in /metrics, after every attempt', async () => {
    const ok = await request(server, 'POST', '/v1/call', { body: { tool: 'ok', params: {} } });
    await until(() => receiver.deliveries.filter((delivery) => delivery.path === '/down' && delivery.body.includes(ok.json.id)).length === 3, 'three attempts at /down');
    let failed = 0;
    for (let tries = 0; tries < 100; tries += 1) {
      const metrics = await request(server, 'GET', '/metrics');
      // the second target (/down) is the one that never answers 2xx
      const line = metrics.text.split('\n').find((text) => text.startsWith('hldp_notifications_failed_total{target="1 '));
      failed = line ? Number(line.split(' ').pop()) : 0;
      if (failed >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // both ok receipts of these tests went to /down, which never answers 2xx
    expect(failed).toBeGreaterThanOrEqual(2);
    const metrics = await request(server, 'GET', '/metrics');
    expect(metrics.text).toMatch(/hldp_notifications_delivered_total\{target="0 127\.0\.0\.1:\d+"\} [1-9]/);
  });
});
