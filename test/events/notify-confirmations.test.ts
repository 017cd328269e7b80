import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { commitFiles, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { openSse } from '../helpers/sse-client.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// User finding U11-15: an agent confirming its own require_confirm call (no person involved) was POSTed to every
// notify target as `approval.requested`, the default list included, so the people watching a webhook were paged for
// nothing. A target now gets an agent's own confirmations only if it lists confirmation.requested / .resolved; a
// person's approval still goes to approval.requested, the default. One real `hldp serve`, real receivers on loopback.

interface Delivery {
  path: string;
  /** the X-Hldp-Event header */
  header: string;
  type: string;
  data: Record<string, unknown>;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 400; tries += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let temp: { path: string; cleanup: () => Promise<void> };
let receiver: WebhookReceiver;
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-notify-confirm-');
  receiver = await startWebhookReceiver();
  // `note` declares require_confirm (its caller confirms it); `tidy` a rule's self_approval; `ship` needs a person
  const repo = await makeConsoleRepository(temp.path);
  await commitFiles(repo, {
    'tools/tidy/TOOL.hdlp': makeToolYaml('tidy', { executor: 'shell', method: 'run', shell: '{ argv: [echo, tidied] }' }),
    'tools/ship/TOOL.hdlp': makeToolYaml('ship', { executor: 'shell', method: 'run', shell: '{ argv: [echo, shipped] }' }),
    'policies/people.hdlp': [
      'name: people', 'author: TEST-001', 'why: the agent tidies once it confirms; a person ships',
      'approval:',
      '  - tools: [tidy]', '    decision: approve', '    self_approval: true', '    reason: the agent confirms its own tidying',
      '  - tools: [ship]', '    decision: approve', '    reason: a person looks before shipping',
      '',
    ].join('\n'),
  });
  const config = join(temp.path, 'hldp.yaml');
  await writeFile(config, [
    'notify:',
    `  - { url: "${receiver.url}/default" }`,
    `  - { url: "${receiver.url}/approvals", events: [approval.requested, approval.resolved] }`,
    `  - { url: "${receiver.url}/confirmations", events: [confirmation.requested, confirmation.resolved, approval.requested] }`,
    '',
  ].join('\n'));
  server = await spawnService(['serve', '--port', '0', '--config', config], {
    HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn',
  }, / at (http:\/\/[\d.:]+)\n/);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await temp?.cleanup();
});

const at = (path: string): Delivery[] =>
  receiver.deliveries.filter((post) => post.path === path).map((post) => {
    const event = JSON.parse(post.body) as { type: string; data: Record<string, unknown> };
    return { path: post.path, header: String(post.headers['x-hldp-event']), type: event.type, data: event.data };
  });

describe("notify and an agent's own confirmation (U11-15)", () => {
  it('pages no default target for a confirmation its caller gives itself; a target that opted in gets it; a person\'s approval still goes to the default', async () => {
    // the agent's own confirmations: require_confirm, and a rule's self_approval, each confirmed with its token
    const confirmed: string[] = [];
    for (const call of [{ tool: 'note', params: { text: 'mine' } }, { tool: 'tidy', params: {} }]) {
      const pending = await request(server, 'POST', '/v1/call', { body: call });
      expect(pending.status).toBe(202);
      expect(pending.json).toMatchObject({ status: 'confirmation_required', token: expect.any(String) });
      const ran = await request(server, 'POST', '/v1/confirm', { body: { token: pending.json.token } });
      expect(ran.json).toMatchObject({ ok: true, tool: call.tool });
      confirmed.push(pending.json.id as string);
    }
    // then a call that waits for a person
    const waiting = await request(server, 'POST', '/v1/call', { body: { tool: 'ship', params: {} } });
    expect(waiting.status).toBe(202);
    expect(waiting.json.status).toBe('approval_required');

    // each target's deliveries go in id order: once the person's request reached it, the confirmations before it were sent or not
    const personAsked = (path: string) => () => at(path).some((delivery) => delivery.type === 'approval.requested' && delivery.data.approval === waiting.json.id);
    await until(personAsked('/default'), "the person's request at /default");
    await until(personAsked('/approvals'), "the person's request at /approvals");
    await until(personAsked('/confirmations'), "the person's request at /confirmations");

    // the default target ([failures, approval.requested]) and one listing approval.*: nothing of the confirmations
    for (const path of ['/default', '/approvals']) {
      expect(at(path).filter((delivery) => confirmed.includes(delivery.data.approval as string))).toEqual([]);
      expect(at(path).map((delivery) => [delivery.type, delivery.data.kind, delivery.data.tool])).toEqual([['approval.requested', 'approval', 'ship']]);
    }
    // the target that opted in: each confirmation asked and confirmed, as the event stream carries it, then the person's request
    expect(at('/confirmations').map((delivery) => [delivery.type, delivery.data.kind, delivery.data.tool, delivery.data.approval])).toEqual([
      ['approval.requested', 'confirmation', 'note', confirmed[0]],
      ['approval.resolved', 'confirmation', 'note', confirmed[0]],
      ['approval.requested', 'confirmation', 'tidy', confirmed[1]],
      ['approval.resolved', 'confirmation', 'tidy', confirmed[1]],
      ['approval.requested', 'approval', 'ship', waiting.json.id],
    ]);
    // a receiver tells them apart by the data's kind: the header names the event's type, as ever
    expect(at('/confirmations').every((delivery) => delivery.header === delivery.type)).toBe(true);
  });

  it('still carries the confirmations on the event stream as approval.requested, as the console reads it', async () => {
    const stream = await openSse(`${server.url}/v1/events?types=approval.requested`, { 'last-event-id': '0' });
    try {
      await stream.next((message) => message.event === 'approval.requested' && JSON.parse(message.data).data.tool === 'ship');
      expect(stream.events().map((event) => [event.data.kind, event.data.tool])).toEqual([['confirmation', 'note'], ['confirmation', 'tidy'], ['approval', 'ship']]);
    } finally {
      stream.close();
    }
  });

  it('sends the resolution of a request that waited for a person to the targets that list approval.resolved', async () => {
    const ship = at('/approvals').find((delivery) => delivery.type === 'approval.requested' && delivery.data.tool === 'ship')!;
    const before = at('/approvals').length;
    // its caller ('local' here) may not decide its own request, but may cancel it: the request is resolved all the same
    const decided = await request(server, 'POST', `/v1/approvals/${ship.data.approval as string}/cancel`, { body: { reason: 'not today' } });
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);
    await until(() => at('/approvals').length > before, 'approval.resolved at /approvals');
    expect(at('/approvals').slice(before).map((delivery) => [delivery.type, delivery.data.kind, delivery.data.decision])).toEqual([['approval.resolved', 'approval', 'cancelled']]);
  });

  it('sends a confirmation that ends without its token (cancelled) as a confirmation, never to the approval.* targets', async () => {
    // its approval.resolved read `kind: approval` from how it ended (not confirmed), and paged /approvals
    const pending = await request(server, 'POST', '/v1/call', { body: { tool: 'note', params: { text: 'dropped' } } });
    expect(pending.status).toBe(202);
    const id = pending.json.id as string;
    expect((await request(server, 'POST', `/v1/approvals/${id}/cancel`, { body: { reason: 'changed my mind' } })).status).toBe(200);
    // then a person's request, cancelled too: in id order, once its resolution reached /approvals, the one before was sent or not
    const ship = await request(server, 'POST', '/v1/call', { body: { tool: 'ship', params: {} } });
    expect(ship.status).toBe(202);
    expect((await request(server, 'POST', `/v1/approvals/${ship.json.id as string}/cancel`, { body: {} })).status).toBe(200);
    const shipResolved = (path: string) => () => at(path).some((delivery) => delivery.type === 'approval.resolved' && delivery.data.approval === ship.json.id);
    await until(shipResolved('/approvals'), "the person's request resolved at /approvals");
    await until(() => at('/confirmations').some((delivery) => delivery.type === 'approval.resolved' && delivery.data.approval === id), 'the cancelled confirmation at /confirmations');
    for (const path of ['/default', '/approvals']) expect(at(path).filter((delivery) => delivery.data.approval === id), path).toEqual([]);
    expect(at('/confirmations').filter((delivery) => delivery.data.approval === id).map((delivery) => [delivery.type, delivery.data.kind, delivery.data.decision ?? null])).toEqual([
      ['approval.requested', 'confirmation', null],
      ['approval.resolved', 'confirmation', 'cancelled'],
    ]);
  });
});
