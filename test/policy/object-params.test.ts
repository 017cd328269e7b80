import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type PolicyGateway, startPolicyGateway } from './support.js';

// Review K's K5: a deny or approve rule's `when:` skipped a param whose value was an object, so the text it looks
// for, put inside an object, ran the call unapproved. The stricter reading: any scalar inside matches a broad rule.

const JSON_IN = [
  'name: jsonin', 'display: jsonin', 'intent: reads its params as JSON', 'method: run', 'executor: shell',
  'params_schema:', '  target: { type: [string, object, array], required: true }',
  'shell: { argv: [cat], stdin: json }', 'author: TEST-001', 'created: 2026-12-01', 'why: tests need an object-valued param',
].join('\n');
const JSON_APPROVE = JSON_IN.replace('name: jsonin', 'name: jsonask').replace('display: jsonin', 'display: jsonask');

const POLICY = [
  'name: objects', 'author: TEST-001', 'why: tests', 'approval:',
  '  - tools: [jsonin]', '    when: { target: { regex: "prod" } }', '    decision: deny', '    reason: never touch prod',
  '  - tools: [jsonask]', '    when: { target: { regex: "prod" } }', '    decision: approve', '    reason: a person looks at prod',
].join('\n');

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'tools/jsonin/TOOL.hdlp': JSON_IN, 'tools/jsonask/TOOL.hdlp': JSON_APPROVE, 'policies/objects.hdlp': POLICY });
});
afterAll(() => gateway?.stop());

const call = (tool: string, target: unknown) => api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool, params: { target } } });

describe('a deny rule whose condition names an object-valued param', () => {
  it.each([
    ['a string', 'prod-db'],
    ['an object value', { host: 'prod-db' }],
    ['a nested list', [['x', { where: ['prod-db'] }]]],
    ['an object key', { 'prod-db': true }],
  ])('denies %s that holds the text, and nothing runs', async (_, target) => {
    const denied = await call('jsonin', target);
    expect(denied.body).toMatchObject({ ok: false, code: 'DENIED', output: '', error: expect.stringContaining('never touch prod') });
  });

  it('runs an object that does not hold it', async () => {
    expect((await call('jsonin', { host: 'staging' })).body).toMatchObject({ ok: true, output: '{"target":{"host":"staging"}}' });
  });
});

describe('an approve rule whose condition names an object-valued param', () => {
  it('waits for a person when the text is inside an object', async () => {
    const pending = await call('jsonask', { host: { name: 'prod-db' } });
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ status: 'approval_required', tool: 'jsonask', reason: expect.stringContaining('a person looks at prod') });
  });
});
