// Review userZ9, U9-12: a deny rule whose `when:` named a param the tool does not have (`pth` for `path`) matched
// nothing — every condition must hold, and one on a param no call has never does — so writes to the folder it was
// written to protect went through, while `hldp validate --config` said 0 errors and serve and rescan said nothing.
// Now such a key is an error at the key, with the tool's params and a did-you-mean, and the policy is refused whole
// (every call refused, as for a tool name the registry lacks). Real git repository, real `hldp serve` and CLI.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { api, startPolicyGateway, type PolicyGateway } from './support.js';

// a note writer without require_confirm, as the user's: the deny rule is all that stands between a call and the write
const WRITE_NOTE = [
  'name: write-note', 'display: Write a note', 'intent: write a note file in the workspace', 'method: write_file', 'executor: gatekeeper',
  'params_schema:', '  path: { type: string, required: true }', '  content: { type: string, required: true }', '  create_dirs: { type: boolean, default: true }',
  'author: TEST-001', 'created: 2026-12-01', 'why: agents keep notes',
].join('\n');

const SLIP = [
  'name: notes', 'author: TEST-001', 'why: private notes stay private', 'approval:',
  '  - tools: [write-note]',
  '    when: { pth: { glob: "private/**" } }',
  '    decision: deny',
  '    reason: no private notes',
].join('\n');

describe('a when key no tool of the rule takes (review userZ9, U9-12)', () => {
  let gateway: PolicyGateway;
  beforeAll(async () => {
    gateway = await startPolicyGateway({ 'tools/write-note/TOOL.hdlp': WRITE_NOTE, 'policies/notes.hdlp': SLIP }, { logLevel: 'warn' });
  }, 120_000);
  afterAll(async () => gateway?.stop(), 60_000);

  it('refuses the call to the protected path instead of running it, and names the key', { timeout: 60_000 }, async () => {
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'write-note', params: { path: 'private/key', content: 'x' } } });
    expect(call.status).toBe(403);
    expect(call.body.reason).toContain("policies/notes.hdlp:6:13");
    expect(call.body.reason).toContain("conditions on 'pth', which write-note does not take");
    expect(existsSync(join(gateway.folder, 'workspace', 'private', 'key'))).toBe(false);
    const policies = await api(gateway.url, 'GET', '/v1/policies', { who: 'admin' });
    expect(policies.body.broken).toContainEqual(expect.objectContaining({ file: 'policies/notes.hdlp', line: 6, column: 13, code: 'UNKNOWN_PARAM' }));
  });

  it('is an error of hldp validate --config at the key, with the params and a did-you-mean', { timeout: 60_000 }, async () => {
    const validate = await runCli(['validate', '--config', gateway.configFile, 'policies', '--json'], { env: gateway.env, cwd: gateway.repo });
    expect(validate.code).toBe(1);
    const { errors } = JSON.parse(validate.stdout) as { errors: Array<Record<string, unknown>> };
    expect(errors).toContainEqual(expect.objectContaining({
      file: 'policies/notes.hdlp', line: 6, column: 13, severity: 'error', code: 'UNKNOWN_PARAM',
      message: expect.stringMatching(/conditions on 'pth', which write-note does not take \(its params: path, content, create_dirs\); did you mean 'path'\?/),
    }));
  });
});
