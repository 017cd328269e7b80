import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { api, startPolicyGateway, WRITES_NEED_AN_APPROVER, type PolicyGateway } from './support.js';

// CI21 (test/mcp-front/approval-wait.test.ts): an agent answered by approval_wait read hldp://events at once and found
// no approval.resolved: the request was recorded as resolved (which answers every waiter, in any process) and its event
// appended after. Another process reading the store as fast as it can — as a waiter at another instance, or
// `hldp mcp` on stdio, reads it — must never see a request resolved whose event is not in the log yet.
let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER);
});
afterAll(() => gateway?.stop());

// reads, in one read transaction each time, the resolved requests and the approval.resolved events, over and over
const READER = `
const Database = require(process.env.SQLITE_MODULE);
const db = new Database(process.env.STORE, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const resolved = db.prepare('SELECT id FROM approvals WHERE receipt_id IS NOT NULL');
const announced = db.prepare("SELECT data FROM events WHERE type = 'approval.resolved'");
const look = db.transaction(() => {
  const said = new Set(announced.all().map((row) => JSON.parse(row.data).approval));
  return { resolved: resolved.all().map((row) => row.id), unsaid: resolved.all().map((row) => row.id).filter((id) => !said.has(id)) };
});
const unannounced = new Set();
const seen = new Set();
let reads = 0;
const lookOnce = () => {
  const { resolved: ids, unsaid } = look();
  for (const id of ids) seen.add(id);
  for (const id of unsaid) unannounced.add(id);
  reads += 1;
};
process.stdin.on('data', () => {
  // one read more, after every request the test made was settled: what it says then is all the store holds
  lookOnce();
  process.stdout.write(JSON.stringify({ unannounced: [...unannounced], seen: [...seen], reads }));
  process.exit(0);
});
const loop = () => {
  for (let round = 0; round < 100; round += 1) lookOnce();
  setImmediate(loop);
};
process.stdout.write('ready\\n');
loop();
`;

function startReader(store: string): Promise<{ stop(): Promise<{ unannounced: string[]; seen: string[]; reads: number }> }> {
  const child = spawn(process.execPath, ['-e', READER], { env: { ...process.env, STORE: store, SQLITE_MODULE: createRequire(import.meta.url).resolve('better-sqlite3') }, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the reader exited ${code} before it was ready: ${out}`)));
    const ready = setInterval(() => {
      if (!out.startsWith('ready\n')) return;
      clearInterval(ready);
      resolve({
        async stop() {
          child.stdin.write('stop\n');
          await exited;
          return JSON.parse(out.slice('ready\n'.length)) as { unannounced: string[]; seen: string[]; reads: number };
        },
      });
    }, 20);
  });
}

describe('a request resolved by a person', () => {
  it('is never seen resolved, by a process reading the store, before its approval.resolved event is in the log', async () => {
    // the store exists once the first request is filed
    const first = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'first.txt', content: 'x\n' } } });
    expect(first.body.status).toBe('approval_required');
    const reader = await startReader(join(gateway.folder, 'data', 'receipts.db'));
    const ids: string[] = [first.body.id];
    for (let round = 0; round < 15; round += 1) {
      const pending = round === 0 ? first : await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: `note-${round}.txt`, content: 'x\n' } } });
      const id = pending.body.id as string;
      if (round > 0) ids.push(id);
      // approvals run the call and settle with its receipt; denials close the request with a DENIED one
      const verdict = round % 3 === 2 ? 'deny' : 'approve';
      expect((await api(gateway.url, 'POST', `/v1/approvals/${id}/${verdict}`, { who: 'alice', body: {} })).status).toBe(200);
    }
    // an approval's answer may come before its run settles the request: stop reading once each is settled
    for (const id of ids) await expect.poll(async () => ((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' })).body.approval?.receipt_id ?? null), { timeout: 30_000, interval: 50 }).not.toBeNull();
    const { unannounced, seen, reads } = await reader.stop();
    expect(reads).toBeGreaterThan(0);
    expect(seen.sort()).toEqual([...ids].sort());
    expect(unannounced).toEqual([]);
  });
});
