// Review userZ9, U9-11: a policy's `callers: {principals: [agnet1]}` (meant agent1) made a deny deny no one, and an
// access rule's `principals: [leda]` (meant lead) refused the principal it was written for, with no warning at
// `hldp validate --config` or at `hldp serve`'s start; only `approvers` names were checked. Both are now said, with
// the configured name each likely meant. Real git repository, real `hldp validate` and `hldp serve` processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startPolicyGateway, type PolicyGateway } from './support.js';

const SLIPS = [
  'name: extra', 'author: TEST-001', 'why: tests', 'access:',
  '  - tools: [git-ops]', '    principals: [laed]', '    reason: git is lead\'s',
  'approval:',
  '  - tools: [file-read]', '    callers: { principals: [bto] }', '    decision: deny', '    reason: bot may not read',
].join('\n');

describe('a policy naming a principal the config does not have (review userZ9, U9-11)', () => {
  let gateway: PolicyGateway;
  beforeAll(async () => {
    gateway = await startPolicyGateway({ 'policies/extra.hdlp': SLIPS }, { logLevel: 'warn' });
  }, 120_000);
  afterAll(async () => gateway?.stop(), 60_000);

  it('is a warning of hldp validate --config at each rule, with the name meant', { timeout: 60_000 }, async () => {
    const validate = await runCli(['validate', '--config', gateway.configFile, 'policies', '--json'], { env: gateway.env, cwd: gateway.repo });
    const { warnings } = JSON.parse(validate.stdout) as { warnings: Array<Record<string, unknown>> };
    expect(warnings).toContainEqual(expect.objectContaining({ file: 'policies/extra.hdlp', line: 5, code: 'UNKNOWN_PRINCIPAL', message: expect.stringContaining("'laed' (did you mean 'lead'?) is no configured principal's name") }));
    expect(warnings).toContainEqual(expect.objectContaining({
      file: 'policies/extra.hdlp', line: 9, code: 'UNKNOWN_PRINCIPAL',
      message: expect.stringMatching(/'bto' \(did you mean 'bot'\?\) is no configured principal's name .*correct the name in callers.*this deny rule matches no call by that name/),
    }));
  });

  it('is said at hldp serve\'s start', () => {
    expect(gateway.service.stderr()).toContain("'bto' (did you mean 'bot'?) is no configured principal's name");
    expect(gateway.service.stderr()).toContain("'laed' (did you mean 'lead'?) is no configured principal's name");
  });
});
