import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startPolicyGateway } from './support.js';

// a real `hldp serve` whose config keeps one decided approval request and two rejected calls, pruning every second
const RETENTION = 'approvals: { retention: { max_rows: 1, interval_ms: 1000 } }\nrejections: { retention: { max_rows: 2, interval_ms: 1000 } }\n';
const WRITES = ['name: writes', 'author: TEST-001', 'why: every write needs a person', 'approval:', '  - tools: [file-write]', '    decision: approve'].join('\n');

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'policies/writes.hdlp': WRITES }, { config: RETENTION });
});
afterAll(() => gateway?.stop());

const write = (path: string) => api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'x\n', create_dirs: true } } });

/** Asks `read` again (each pruning pass is a second apart) until `done` holds of its answer, for at most a minute. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('hldp serve with approvals.retention and rejections.retention', () => {
  it('prunes decided requests and rejected calls down to max_rows, never a pending request, which still runs once approved', async () => {
    const pending = (await write('etc/pending.txt')).body.id as string;
    const denied: string[] = [];
    for (const path of ['etc/first.txt', 'etc/second.txt']) {
      const id = (await write(path)).body.id as string;
      const answer = await api(gateway.url, 'POST', `/v1/approvals/${id}/deny`, { who: 'alice', body: { reason: 'not now' } });
      expect(answer.status).toBe(200);
      denied.push(answer.body.receipt.id as string);
    }
    for (let index = 0; index < 4; index += 1) expect((await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: `shel-exec-${index}`, params: {} } })).status).toBe(404);

    const requests = await eventually(
      async () => ((await api(gateway.url, 'GET', '/v1/approvals?limit=100', { who: 'admin' })).body.approvals as Array<{ id: string; status: string }>),
      (listed) => listed.length === 2,
    );
    // the oldest request is pending: kept beyond max_rows; of the decided ones only the newest is left
    expect(requests.map((request) => request.status).sort()).toEqual(['denied', 'pending']);
    expect(requests.find((request) => request.status === 'pending')?.id).toBe(pending);
    const rejected = await eventually(
      async () => ((await api(gateway.url, 'GET', '/v1/rejections', { who: 'admin' })).body.rejections as Array<{ tool: string }>),
      (listed) => listed.length === 2 && listed[0]!.tool === 'shel-exec-3',
    );
    expect(rejected.map((record) => record.tool)).toEqual(['shel-exec-3', 'shel-exec-2']);

    // the receipts of pruned requests stay, and the pending request is decided as if nothing happened
    expect((await api(gateway.url, 'GET', `/v1/receipts/${denied[0]}`, { who: 'admin' })).body).toMatchObject({ code: 'DENIED', approval: { status: 'denied' } });
    const approved = await api(gateway.url, 'POST', `/v1/approvals/${pending}/approve`, { who: 'alice' });
    expect(approved.status).toBe(200);
    expect(approved.body.receipt).toMatchObject({ ok: true, tool: 'file-write', confirmation: pending });
  });
});
