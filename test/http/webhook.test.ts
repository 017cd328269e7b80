import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Registry } from '../../src/gateway/service/index.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { expectDocumented, request, startTestServer } from '../helpers/http-server.js';

const SECRET = 'webhook-secret-for-tests';
const echoTool = (name: string) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${name}] }` });

let temp: { path: string; cleanup: () => Promise<void> };
let gitServer: GitHttpServer;
let server: Awaited<ReturnType<typeof startTestServer>>;
let work: string;

beforeEach(async () => {
  temp = await makeTempDir();
  const projectRoot = join(temp.path, 'served');
  await initRepository(join(projectRoot, 'tools.git'), { bare: true });
  gitServer = await startGitHttpServer({ projectRoot });
  work = await initRepository(join(temp.path, 'work'));
  await git(work, 'remote', 'add', 'origin', `${gitServer.url}/tools.git`);
  await commitFiles(work, { 'tools/first/TOOL.hdlp': echoTool('first') });
  await git(work, 'push', '-q', 'origin', 'main');
  // polling off: only the webhook may trigger a rescan here
  server = await startTestServer(`${gitServer.url}/tools.git`, { HLDP_WEBHOOK_SECRET: SECRET, HLDP_POLL_INTERVAL_MS: '0' });
});
afterEach(async () => {
  await server.cleanup();
  await gitServer.close();
  await temp.cleanup();
});

async function pushTool(name: string): Promise<string> {
  const commit = await commitFiles(work, { [`tools/${name}/TOOL.hdlp`]: echoTool(name) });
  await git(work, 'push', '-q', 'origin', 'main');
  return commit;
}

function pushPayload(after: string): string {
  return JSON.stringify({ ref: 'refs/heads/main', before: '0'.repeat(40), after, commits: [{ id: after, added: [], removed: [], modified: [] }], repository: { full_name: 'agents/tools' } });
}

function sign(body: string, secret = SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function nextIndex(): Promise<Registry> {
  return new Promise((resolve) => {
    const stop = server.gateway.onIndexChange((registry) => {
      stop();
      resolve(registry);
    });
  });
}

describe('POST /v1/hooks/forgejo', () => {
  it('accepts a signed push at once, rescans in the background, and the pushed tool becomes callable', async () => {
    expect((await request(server, 'POST', '/v1/call', { body: { tool: 'second' } })).status).toBe(404);
    const commit = await pushTool('second');
    const body = pushPayload(commit);
    const swapped = nextIndex();
    const response = await request(server, 'POST', '/v1/hooks/forgejo', {
      raw: body,
      headers: { 'content-type': 'application/json', 'x-forgejo-event': 'push', 'x-forgejo-delivery': 'd-1', 'x-forgejo-signature': sign(body) },
    });
    expect(response.status).toBe(202);
    expect(response.json).toEqual({ accepted: true, event: 'push', delivery: 'd-1', rescan: 'scheduled' });
    expectDocumented('/v1/hooks/forgejo', 'POST', response);
    expect((await swapped).index.commit).toBe(commit);
    const call = await request(server, 'POST', '/v1/call', { body: { tool: 'second' } });
    expect(call.json).toMatchObject({ ok: true, output: 'second\n', commit });
  });

  it('hands the rescan the branch and commit the push names, so that the remote is fetched beside its head check', async () => {
    const commit = await pushTool('second');
    const body = pushPayload(commit);
    const gateway = server.gateway;
    const rescan = gateway.rescan.bind(gateway);
    const asked: unknown[] = [];
    // watched, not replaced: the rescan runs as it would
    gateway.rescan = (pushed) => {
      asked.push(pushed);
      return rescan(pushed);
    };
    const swapped = nextIndex();
    const response = await request(server, 'POST', '/v1/hooks/forgejo', { raw: body, headers: { 'content-type': 'application/json', 'x-forgejo-event': 'push', 'x-forgejo-signature': sign(body) } });
    expect(response.status).toBe(202);
    expect((await swapped).index.commit).toBe(commit);
    expect(asked).toEqual([{ ref: 'refs/heads/main', after: commit }]);
  });

  it.each([
    ['a wrong signature', (body: string) => ({ 'x-forgejo-signature': sign(body, 'not-the-secret') })],
    ['a signature of other bytes', (body: string) => ({ 'x-forgejo-signature': sign(`${body} `) })],
    ['no signature', () => ({})],
  ])('refuses %s with 401 and does not rescan', async (_case, headersFor) => {
    const before = server.gateway.registry.index.commit;
    const commit = await pushTool('sneaky');
    const body = pushPayload(commit);
    let rescans = 0;
    server.gateway.onIndexChange(() => rescans++);
    const fetchesBefore = gitServer.requests();
    // an accepted webhook asks for a rescan before it answers: a refused one must not have
    const rescan = vi.spyOn(server.gateway, 'rescan');
    const response = await request(server, 'POST', '/v1/hooks/forgejo', { raw: body, headers: { 'content-type': 'application/json', 'x-forgejo-event': 'push', ...headersFor(body) } });
    expect(response.status).toBe(401);
    expect(response.json.code).toBe('BAD_SIGNATURE');
    expectDocumented('/v1/hooks/forgejo', 'POST', response);
    expect(rescan).not.toHaveBeenCalled();
    expect(gitServer.requests()).toBe(fetchesBefore);
    expect(rescans).toBe(0);
    expect(server.gateway.registry.index.commit).toBe(before);
  });

  it('keeps a delivery id only as an id looks: an unsigned header of 10,000 characters is dropped, the push still rescans', async () => {
    // the id reached the announcement to the other instances, and PostgreSQL's NOTIFY refuses a payload past ~8,000
    // bytes: they then waited for their poll
    const commit = await pushTool('fourth');
    const body = pushPayload(commit);
    const swapped = nextIndex();
    const response = await request(server, 'POST', '/v1/hooks/forgejo', {
      raw: body,
      headers: { 'content-type': 'application/json', 'x-forgejo-event': 'push', 'x-forgejo-delivery': 'x'.repeat(10_000), 'x-forgejo-signature': sign(body) },
    });
    expect(response.status).toBe(202);
    expect(response.json).toEqual({ accepted: true, event: 'push', delivery: null, rescan: 'scheduled' });
    expect((await swapped).index.commit).toBe(commit);
  });

  it('also accepts the X-Hub-Signature-256 form', async () => {
    const commit = await pushTool('third');
    const body = pushPayload(commit);
    const swapped = nextIndex();
    // with the event header such a sender sends beside it (one without any is 400 since review Z8, Z8-7)
    const response = await request(server, 'POST', '/v1/hooks/forgejo', { raw: body, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${sign(body)}` } });
    expect(response.status).toBe(202);
    expect((await swapped).index.commit).toBe(commit);
  });
});

describe('calls during a rescan', () => {
  it('all complete, each receipt naming the commit its call started on', async () => {
    const before = server.gateway.registry.index.commit;
    const commit = await pushTool('fourth');
    const calls = Array.from({ length: 12 }, () => request(server, 'POST', '/v1/call', { body: { tool: 'first' } }));
    const rescan = request(server, 'POST', '/v1/scan');
    const more = Array.from({ length: 12 }, () => request(server, 'POST', '/v1/call', { body: { tool: 'first' } }));
    const responses = await Promise.all([...calls, ...more]);
    expect((await rescan).json).toMatchObject({ changed: true, commit });
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ ok: true, output: 'first\n' });
      expect([before, commit]).toContain(response.json.commit);
    }
    const stored = await request(server, 'GET', '/v1/receipts?tool=first&limit=1000');
    expect(stored.json.receipts).toHaveLength(24);
  });
});

describe('when the remote becomes unreachable', () => {
  it('keeps serving the last good index and says so in /healthz', async () => {
    await gitServer.close();
    const scan = await request(server, 'POST', '/v1/scan');
    // what was read is said, and the status is not a success (review N, N22: it was 200)
    expect(scan.status).toBe(502);
    expect(scan.json).toMatchObject({ code: 'SCAN_FAILED', error: expect.stringMatching(/cannot reach .*; still serving /), changed: false, stale: { reason: expect.stringMatching(/cannot reach/) } });
    const health = await request(server, 'GET', '/healthz');
    expect(health.json).toMatchObject({ status: 'degraded', tools: 1, stale: { reason: expect.any(String) } });
    expect((await request(server, 'POST', '/v1/call', { body: { tool: 'first' } })).json.ok).toBe(true);
    gitServer = await startGitHttpServer({ projectRoot: join(temp.path, 'served') });
  });
});
