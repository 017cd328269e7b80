// Review Z12, Z12-8. Two instances on one PostgreSQL store, on hosts whose clocks differ: B's runs 45 s ahead (no NTP,
// a VM resumed). Each wrote its row in the store's roll of live instances by its own clock, and B, reading A's rows
// as 45 s old, never counted A as serving: an approver at B was refused (409, "no gateway serving now runs request")
// for a request A filed and would run. The roll's times are now the database's, and a filer not seen is not taken
// for gone unless its row was seen to leave: B records the approval, and A runs the call.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, PRINCIPAL_ENV, PRINCIPALS_YAML, receiptOf } from './support.js';

const SHOW_TEXT = [
  'name: show-text', 'display: show-text', 'intent: print the text it is given', 'method: run', 'executor: shell',
  'params_schema:', '  text: { type: string, required: true }',
  `shell: { script: 'printf "%s\\n" "$HLDP_PARAM_TEXT"' }`, 'author: TEST-001', 'created: 2026-12-06', 'why: tests need a shell tool an approver holds',
].join('\n');

const HELD = ['name: held', 'author: TEST-001', 'why: a person looks at show-text first', 'approval:', '  - tools: [show-text]', '    decision: approve', '    approvers: { roles: [approver] }'].join('\n');

const PRINCIPALS = PRINCIPALS_YAML.replace('shell-exec]', 'shell-exec, show-text]');

// loaded by B's node before anything else: its host's clock, 45 s ahead of A's (and the database's)
const AHEAD = `const ahead = 45_000;
const RealDate = Date;
class AheadDate extends RealDate {
  constructor(...args) { if (args.length === 0) super(RealDate.now() + ahead); else super(...args); }
  static now() { return RealDate.now() + ahead; }
}
globalThis.Date = AheadDate;
`;

describeWithPostgres('an approval at an instance whose host\'s clock runs 45 s ahead of the filer\'s, one PostgreSQL store (review Z12, Z12-8)', () => {
  const stops: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  }, 90_000);

  it('is recorded (202) and runs at the filer, which serves: not refused as "no gateway serving now runs request"', { timeout: 300_000 }, async () => {
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    const { repo, temp } = await policyRepository({ 'policies/held.hdlp': HELD, 'tools/show-text/TOOL.hdlp': SHOW_TEXT });
    stops.push(() => temp.cleanup());
    const before = join(temp.path, 'before.yaml');
    const after = join(temp.path, 'after.yaml');
    await writeFile(before, PRINCIPALS);
    // B has another setting: a request filed at A runs at A, not at B
    await writeFile(after, `${PRINCIPALS}shell:\n  inherit_env: [HLDP_TEST_KEY]\n`);
    const clock = join(temp.path, 'clock-ahead.mjs');
    await writeFile(clock, AHEAD);
    await mkdir(join(temp.path, 'workspace'));
    const shared = { HLDP_STORE_URL: database.url, HLDP_POLL_INTERVAL_MS: '600000', HLDP_LOG_LEVEL: 'warn', HLDP_TEST_KEY: 'key-5e1d', HLDP_WORKSPACE: join(temp.path, 'workspace'), ...PRINCIPAL_ENV };
    const serve = async (name: string, config: string, node: string[] = []): Promise<ServiceProcess> => {
      const service = await spawnService(['serve', '--port', '0', '--repo', repo, '--config', config], { ...shared, HLDP_CACHE_DIR: join(temp.path, name, 'cache') }, / at (http:\/\/[\d.:]+)\n/, node);
      stops.push(() => service.stop());
      return service;
    };
    // one after another: the first sets the store up
    const a = await serve('a', before);
    const b = await serve('b', after, ['--import', clock]);

    const filed = await api(a.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'show-text', params: { text: 'across the skew' } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    const id = filed.body.id as string;

    const approved = await api(b.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    expect((await receiptOf(a.url, id)).receipt).toMatchObject({ ok: true, output: 'across the skew\n', approval: { id, decided_by: 'alice' } });
    expect(b.stderr()).not.toContain('could not renew');
  });
});
