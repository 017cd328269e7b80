import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAIL_STDERR, makeConsoleRepository } from '../helpers/console-repo.js';
import { commitFiles, makeTempDir } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { openSse, type SseClient } from '../helpers/sse-client.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let repo: string;
let server: ServiceProcess;
const clients: SseClient[] = [];

async function sse(headers: Record<string, string> = {}, query = ''): Promise<SseClient> {
  const client = await openSse(`${server.url}/v1/events${query}`, headers);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  temp = await makeTempDir('hldp-events-');
  repo = await makeConsoleRepository(temp.path);
  env = { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  server = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
});
afterAll(async () => {
  for (const client of clients) client.close();
  await server?.stop();
  await temp?.cleanup();
});

describe('GET /v1/events', () => {
  describe('when a call fails over HTTP', () => {
    it('sends receipt.stored with an id, the failure and the head of its raw error', async () => {
      const client = await sse();
      expect(client.status).toBe(200);
      expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const call = await request(server, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
      const message = await client.next((m) => m.event === 'receipt.stored' && JSON.parse(m.data).data.receipt === call.json.id);
      const event = JSON.parse(message.data);
      expect(Number(message.id)).toBe(event.id);
      expect(event).toMatchObject({ type: 'receipt.stored', data: { ok: false, tool: 'fail', code: 'NONZERO_EXIT', exit_code: 2, error: FAIL_STDERR } });
    });
  });

  describe('when another process sharing the store makes a call (the CLI)', () => {
    it('delivers its receipt.stored too', async () => {
      const client = await sse();
      const cli = await runCli(['call', 'fail', '--json'], { env });
      expect(cli.code).toBe(1);
      const id = JSON.parse(cli.stdout).id;
      const message = await client.next((m) => m.event === 'receipt.stored' && JSON.parse(m.data).data.receipt === id);
      expect(JSON.parse(message.data).data).toMatchObject({ ok: false, tool: 'fail', error: FAIL_STDERR });
    });
  });

  describe('when a call is rejected or waits for confirmation', () => {
    it('sends call.rejected, approval.requested, then approval.resolved and the receipt once confirmed', async () => {
      const client = await sse();
      await request(server, 'POST', '/v1/call', { body: { tool: 'nope', params: {} } });
      const rejected = JSON.parse((await client.next((m) => m.event === 'call.rejected')).data);
      expect(rejected.data).toMatchObject({ kind: 'not_found', code: 'TOOL_NOT_FOUND', tool: 'nope' });
      const pending = await request(server, 'POST', '/v1/call', { body: { tool: 'note', params: { text: 'hi' } } });
      expect(pending.status).toBe(202);
      const requested = JSON.parse((await client.next((m) => m.event === 'approval.requested')).data);
      expect(requested.data).toMatchObject({ kind: 'confirmation', tool: 'note', params: { text: 'hi' }, expires_at: pending.json.expires_at });
      const confirmed = await request(server, 'POST', '/v1/confirm', { body: { token: pending.json.token } });
      const resolved = JSON.parse((await client.next((m) => m.event === 'approval.resolved')).data);
      // confirmed by the caller itself (local), not decided by a person in the console
      expect(resolved.data).toEqual({ approval: requested.data.approval, kind: 'confirmation', decision: 'approved', tool: 'note', receipt: confirmed.json.id, ok: true, code: null, by: 'local', reason: null, via: 'confirm', caller: 'local' });
      expect(requested.data.approval).toBe(pending.json.id);
      expect(requested.data.approval).toBe(confirmed.json.confirmation);
    });
  });

  describe('when a call is confirmed (review N, N1)', () => {
    it('sends its receipt.stored and approval.resolved once each, and counts the call once', async () => {
      const client = await sse();
      const metric = async (): Promise<number> => {
        const text = (await request(server, 'GET', '/metrics')).text;
        const line = text.split('\n').find((row) => row.startsWith('hldp_calls_total{') && row.includes('tool="note"') && row.includes('outcome="ok"'));
        return line ? Number(line.split(' ').at(-1)) : 0;
      };
      const before = await metric();
      const pending = await request(server, 'POST', '/v1/call', { body: { tool: 'note', params: { text: 'once' } } });
      const confirmed = await request(server, 'POST', '/v1/confirm', { body: { token: pending.json.token } });
      expect(confirmed.json, JSON.stringify(confirmed.json)).toMatchObject({ ok: true, tool: 'note' });
      // a later call's receipt: everything the confirmation published came before it
      const after = await request(server, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
      await client.next((m) => m.event === 'receipt.stored' && JSON.parse(m.data).data.receipt === after.json.id);
      const about = client.events().filter((event) => event.data?.receipt === confirmed.json.id).map((event) => event.type);
      expect(about.sort()).toEqual(['approval.resolved', 'receipt.stored']);
      expect(await metric()).toBe(before + 1);
    });
  });

  describe('when only some types are asked for', () => {
    it('sends those and no others; an unknown type is a 400 that lists the types', async () => {
      const failures = await sse({}, '?types=failures');
      await request(server, 'POST', '/v1/call', { body: { tool: 'ok', params: {} } });
      const failed = await request(server, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
      const message = await failures.next((m) => m.event === 'receipt.stored');
      expect(JSON.parse(message.data).data.receipt).toBe(failed.json.id);
      const bad = await request(server, 'GET', '/v1/events?types=receipt.stored,receipts');
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining("unknown event type 'receipts'") });
    });
  });

  describe('when a client reconnects with Last-Event-ID', () => {
    it('gets exactly the events it missed, in order; an id never given gets a reset to go on from', async () => {
      const first = await sse();
      await request(server, 'POST', '/v1/call', { body: { tool: 'ok', params: {} } });
      const seen = await first.next((m) => m.event === 'receipt.stored');
      first.close();
      const missed: string[] = [];
      for (let index = 0; index < 3; index += 1) missed.push((await request(server, 'POST', '/v1/call', { body: { tool: 'ok', params: {} } })).json.id);
      const again = await sse({ 'last-event-id': seen.id! });
      await again.next((m) => m.event === 'receipt.stored' && JSON.parse(m.data).data.receipt === missed[2]);
      const ids = again.events().map((event) => event.id);
      expect(ids[0]).toBe(Number(seen.id) + 1);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(again.events().filter((event) => event.type === 'receipt.stored').map((event) => event.data.receipt)).toEqual(missed);

      const future = await sse({ 'last-event-id': '999999999' });
      const reset = await future.next((m) => m.event === 'reset');
      expect(JSON.parse(reset.data)).toMatchObject({ requested: 999999999, reason: expect.stringContaining('never given') });
      expect(Number(reset.id)).toBe(JSON.parse(reset.data).newest);
      const bad = await request(server, 'GET', '/v1/events', { headers: { 'last-event-id': 'yesterday' } });
      expect(bad.status).toBe(400);
    });
  });

  describe('when many events leave at once, or the client speaks HTTP/1.0 (no chunked encoding)', () => {
    it('frames every event whole in both: chunks that fetch decodes, and a plain body', async () => {
      const client = await sse({}, '?types=receipt.stored');
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      let raw = '';
      socket.setEncoding('utf8');
      socket.on('data', (text: string) => (raw += text));
      socket.write('GET /v1/events?types=receipt.stored HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      const calls = await Promise.all(Array.from({ length: 12 }, () => request(server, 'POST', '/v1/call', { body: { tool: 'ok', params: {} } })));
      const ids = calls.map((call) => call.json.id as string);
      await client.next((m) => m.event === 'receipt.stored' && JSON.parse(m.data).data.receipt === ids.at(-1));
      for (const id of ids) await client.next((m) => m.event === 'receipt.stored' && JSON.parse(m.data).data.receipt === id);
      await new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (ids.every((id) => raw.includes(`"receipt":"${id}"`))) resolve();
        };
        socket.on('data', check);
        socket.once('close', () => reject(new Error(`closed with ${raw.length} bytes`)));
        check();
      });
      socket.destroy();
      const [head, body] = [raw.slice(0, raw.indexOf('\r\n\r\n')), raw.slice(raw.indexOf('\r\n\r\n') + 4)];
      expect(head).not.toMatch(/transfer-encoding/i);
      // nothing but SSE in the body: no chunk sizes, and no CR (frames use LF; JSON escapes a CR)
      expect(body).not.toContain('\r');
      const frames = body.split('\n\n').filter((frame) => frame.includes('event: receipt.stored'));
      expect(frames.map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)).data.receipt)).toEqual(expect.arrayContaining(ids));
    });
  });

  describe('when a broken TOOL.hdlp is pushed and the registry rescanned', () => {
    it('sends scan.completed and definitions.broken with file:line:col', async () => {
      const client = await sse();
      await commitFiles(repo, { 'tools/broken/TOOL.hdlp': 'name: broken\ndisplay: x\nintent: [unclosed\n' });
      const scan = await request(server, 'POST', '/v1/scan');
      expect(scan.status).toBe(200);
      const completed = JSON.parse((await client.next((m) => m.event === 'scan.completed')).data);
      expect(completed.data).toMatchObject({ changed: true, commit: scan.json.commit, errors: 1 });
      const broken = JSON.parse((await client.next((m) => m.event === 'definitions.broken')).data);
      expect(broken.data.files).toEqual(['tools/broken/TOOL.hdlp']);
      expect(broken.data.errors[0]).toMatchObject({ file: 'tools/broken/TOOL.hdlp', line: expect.any(Number), column: expect.any(Number) });
      await commitFiles(repo, { 'tools/broken': null });
      await request(server, 'POST', '/v1/scan');
    });
  });
});

describe('hldp tail', () => {
  it('follows the stream as a real process, failures marked, and stops after --count events', async () => {
    const tail = runCli(['tail', '--url', server.url, '--count', '2', '--types', 'receipt.stored,call.rejected']);
    // tail subscribes from now on: keep calling until both lines arrive
    let outcome: Awaited<typeof tail> | undefined;
    void tail.then((result) => (outcome = result));
    for (let tries = 0; tries < 100 && !outcome; tries += 1) {
      await request(server, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const result = await tail;
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/#\d+ {2}receipt\.stored +FAIL fail \d+ ms {2}receipt [0-9a-f-]+ {2}NONZERO_EXIT exit 2 {2}error: <b>disk<\/b> & "full"/);
  });

  it('prints one JSON event a line with --json, and colours failures red with --color', async () => {
    const tail = runCli(['tail', '--url', server.url, '--count', '1', '--json']);
    const colored = runCli(['tail', '--url', server.url, '--count', '1', '--color', '--failures']);
    let done = 0;
    void tail.then(() => (done += 1));
    void colored.then(() => (done += 1));
    for (let tries = 0; tries < 100 && done < 2; tries += 1) {
      await request(server, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.parse((await tail).stdout)).toMatchObject({ type: 'receipt.stored', data: { tool: 'fail', ok: false } });
    expect((await colored).stdout.startsWith('\u001b[31m')).toBe(true);
  });
});
