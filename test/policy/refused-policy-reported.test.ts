// A policy refused whole for a `when:` key no tool of its rule takes (review userZ9, U9-12, fixp23) refused every call
// while /healthz said `ok`, its `errors` were 0, POST /v1/scan's answer listed nothing and `hldp list` counted no failed
// definition: an operator saw a healthy gateway that refused calls. It is now reported as a broken definition is. A
// policy's principal name the config lacks (U9-11) was said at the start only, not at a rescan that brought it in or
// kept it; and `hldp list`'s CONFIRM column said `yes` for `require_confirm` alone, so a tool a policy sends to
// approval read like any other (U9-10). Real git repository, real `hldp serve` and `hldp list` processes (fixp24).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { api, startPolicyGateway, WRITES_NEED_AN_APPROVER, type PolicyGateway } from './support.js';

const WRITE_NOTE = [
  'name: write-note', 'display: Write a note', 'intent: write a note file in the workspace', 'method: write_file', 'executor: gatekeeper',
  'params_schema:', '  path: { type: string, required: true }', '  content: { type: string, required: true }',
  'author: TEST-001', 'created: 2026-12-01', 'why: agents keep notes',
].join('\n');

// `pth` for `path` (refused whole), and `bto` for `bot` (a warning: principals are the deployment's)
const SLIPS = [
  'name: notes', 'author: TEST-001', 'why: private notes stay private', 'approval:',
  '  - tools: [write-note]',
  '    when: { pth: { glob: "private/**" } }',
  '    decision: deny',
  '  - tools: [file-read]',
  '    callers: { principals: [bto] }',
  '    decision: deny',
].join('\n');

const UNKNOWN_BTO = "'bto' (did you mean 'bot'?) is no configured principal's name";

describe('a policy refused whole, reported as a broken definition (fixp24)', () => {
  let gateway: PolicyGateway;
  const list = (): ReturnType<typeof runCli> => runCli(['list', '--repo', gateway.repo], { env: gateway.env, cwd: gateway.folder });
  beforeAll(async () => {
    gateway = await startPolicyGateway({ 'tools/write-note/TOOL.hdlp': WRITE_NOTE, ...WRITES_NEED_AN_APPROVER }, { logLevel: 'warn' });
  }, 120_000);
  afterAll(async () => gateway?.stop(), 60_000);

  it("shows in hldp list's CONFIRM column the tools a policy sends to approval (review userZ9, U9-10)", { timeout: 60_000 }, async () => {
    const listed = await list();
    expect(listed.code, listed.stderr).toBe(0);
    const column = (name: string): string | undefined => listed.stdout.split('\n').find((line) => line.startsWith(`${name} `))?.split(/\s{2,}/)[2];
    expect(column('file-write')).toBe('approval');
    expect(column('write-note')).toBe('no');
    expect(listed.stdout.split('\n')[0]).toMatch(/^NAME\s+EXECUTOR\s+CONFIRM\s+DISPLAY · INTENT$/);
  });

  it('is in the errors of POST /v1/scan and /healthz, degraded, counted by hldp list, and its principal slip warned of at each rescan', { timeout: 120_000 }, async () => {
    expect((await api(gateway.url, 'GET', '/healthz', { who: 'admin' })).body.status).toBe('ok');
    expect(gateway.service.stderr()).not.toContain(UNKNOWN_BTO);

    await commitFiles(gateway.repo, { 'policies/notes.hdlp': SLIPS });
    const scan = await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' });
    expect(scan.body.errors).toContainEqual(expect.objectContaining({ file: 'policies/notes.hdlp', line: 6, column: 13, severity: 'error', code: 'UNKNOWN_PARAM', message: expect.stringContaining("conditions on 'pth', which write-note does not take") }));
    const health = await api(gateway.url, 'GET', '/healthz', { who: 'admin' });
    expect(health.body).toMatchObject({ status: 'degraded', errors: 1 });
    const tools = await api(gateway.url, 'GET', '/v1/tools', { who: 'admin' });
    expect(tools.body.errors).toContainEqual(expect.objectContaining({ file: 'policies/notes.hdlp', code: 'UNKNOWN_PARAM' }));
    // one problem, said once: the policy set's own list and the index's are not added together
    const policies = await api(gateway.url, 'GET', '/v1/policies', { who: 'admin' });
    expect(policies.body.broken).toHaveLength(1);
    expect(policies.body.refusing).not.toContain('more problem');
    // still refused whole
    expect((await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'write-note', params: { path: 'private/key', content: 'x' } } })).status).toBe(403);

    const listed = await list();
    expect(listed.stderr).toContain('1 definition(s) failed to load');

    // the slip a rescan brought in is said then, and again at the next rescan that keeps it
    const told = (): number => gateway.service.stderr().split(UNKNOWN_BTO).length - 1;
    const once = told();
    expect(once).toBeGreaterThan(0);
    await commitFiles(gateway.repo, { 'notes.txt': 'another commit, the slip kept' });
    expect((await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' })).body.changed).toBe(true);
    expect(told()).toBeGreaterThan(once);

    // fixed: healthy again, and nothing stale kept among the errors
    await commitFiles(gateway.repo, { 'policies/notes.hdlp': SLIPS.replace('pth:', 'path:').replace('[bto]', '[bot]') });
    const fixed = await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' });
    expect(fixed.body.errors).toEqual([]);
    expect((await api(gateway.url, 'GET', '/healthz', { who: 'admin' })).body.status).toBe('ok');
  });
});
