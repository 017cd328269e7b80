// Review userV, V5, V8, V3 and V10, as the operator and the approver hit them with real `hldp` processes:
// - V5: `hldp call --token <ci-bot's token>` ran as `local` (every role), the token silently taken for the
//   repository's; `hldp help call` printed only the usage line, so nothing told it from `hldp tail --token`.
// - V8: with the deployment's config (tokens in HLDP_PRINCIPAL_<NAME>_TOKEN), `hldp receipts`, `receipts verify`,
//   `scan` and `validate` stopped (exit 2, "principals.ci-bot: needs a token") in a shell without every agent's secret.
// - V3: with no principals, the README's approve rule filed requests nobody could decide, telling the operator to run
//   `hldp approvals approve ID`, which is refused (self-approval): the request could only expire.
// - V10: the 202 told an agent to run `hldp approvals approve`; `hldp tail` showed an approval request without who
//   asked or why; `import mcp` with every draft skipped still said to fill in author and why "in each".
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const NATIVE = fileURLToPath(new URL('../../native-repo', import.meta.url));
const CI_BOT = 'cibot-token-0123456789ab';
const ALICE = 'alice-token-0123456789ab';
const LEAD = 'lead-token-0123456789abcd';
const TOKENS = { HLDP_PRINCIPAL_CI_BOT_TOKEN: CI_BOT, HLDP_PRINCIPAL_ALICE_TOKEN: ALICE };

// the README's policies/writes.hdlp: a write outside agent/ waits for a person
const WRITES = [
  'name: writes', 'author: ICE-GL-ZY001', 'why: The agent writes in agent/; anywhere else a person looks first.', 'approval:',
  '  - tools: [file-write]', '    when: { path: { glob: "agent/**" } }', '    decision: allow',
  '  - tools: [file-write]', '    decision: approve', '    reason: a write outside agent/ needs a person', '',
].join('\n');

/** A copy of the starter registry with the README's writes policy, and a config: the README's principals example, or none. */
async function deployment(principals: boolean): Promise<{ repo: string; config: string }> {
  const repo = join(home.path, 'reg');
  await cp(NATIVE, repo, { recursive: true });
  await mkdir(join(repo, 'policies'));
  await writeFile(join(repo, 'policies', 'writes.hdlp'), WRITES);
  const config = join(home.path, 'hldp.yaml');
  const lead = createHash('sha256').update(LEAD).digest('hex');
  await writeFile(config, [
    `repository: { source: ${repo} }`,
    ...(principals ? ['principals:', '  ci-bot: { roles: [agent], tools: [git-ops, file-read] }', `  lead: { roles: [agent, trusted], token_sha256: ${lead} }`, '  alice: { roles: [approver] }'] : []),
    '',
  ].join('\n'));
  return { repo, config };
}

describe('hldp call --token (V5)', () => {
  it("refuses a principal's token, naming HLDP_TOKEN, and runs nothing as local", async () => {
    const { config } = await deployment(true);
    const env = { ...home.env, ...TOKENS };
    const call = await runCli(['call', 'shell-exec', '--params', '{"cmd":"id -un"}', '--token', CI_BOT, '--config', config, '--json'], { env });
    expect(call.code).toBe(2);
    expect(call.stdout).toBe('');
    expect(call.stderr).toMatch(/--token is the repository's token .* the token of principal 'ci-bot': to act as a principal, set HLDP_TOKEN/);
    const list = await runCli(['approvals', 'list', '--token', ALICE, '--config', config], { env });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain("the token of principal 'alice'");
    const receipts = await runCli(['receipts', '--config', config, '--json'], { env });
    expect(JSON.parse(receipts.stdout).receipts).toEqual([]);
  });

  it('refuses any --token for a local repository, which takes none', async () => {
    const { config } = await deployment(false);
    const call = await runCli(['call', 'shell-exec', '--params', '{"cmd":"true"}', '--token', 'some-token-0123456789', '--config', config], { env: home.env });
    expect(call.code).toBe(2);
    expect(call.stderr).toMatch(/is a local one, which takes none; to act as a principal, set HLDP_TOKEN/);
  });

  it('hldp help COMMAND says what every option means, and which token each --token is', async () => {
    const [call, tail] = await Promise.all([runCli(['help', 'call']), runCli(['help', 'tail'])]);
    expect(call.stdout).toMatch(/^ +--token +T: the token of an http\(s\) git repository R \(HLDP_REPO_TOKEN\), never a principal's/m);
    expect(tail.stdout).toMatch(/^ +--token +T: the principal's token to follow the events as/m);
    const helps = await Promise.all(COMMANDS.map((command) => runCli(['help', command.name])));
    COMMANDS.forEach((command, at) => {
      for (const option of Object.keys(command.options)) expect(helps[at]!.stdout, `${command.name} --${option}`).toMatch(new RegExp(`--${option} +\\S`));
    });
  });
});

describe("the operator's commands in a shell without the principals' tokens (V8)", () => {
  it('read receipts, verify them, scan and validate with the deployment config', async () => {
    const { repo, config } = await deployment(true);
    const runs = await Promise.all([
      runCli(['receipts', '--config', config], { env: home.env }),
      runCli(['receipts', 'verify', '--config', config], { env: home.env }),
      runCli(['scan', '--config', config, '--json'], { env: home.env }),
      runCli(['validate', repo, '--config', config], { env: home.env }),
    ]);
    for (const run of runs) {
      expect(run.stderr).not.toContain('needs a token');
      expect(run.code, run.stderr).toBe(0);
    }
  });

  it('still needs them to serve, which authenticates requests', async () => {
    const { config } = await deployment(true);
    const serve = await runCli(['serve', '--config', config, '--port', '0'], { env: home.env });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('principals.ci-bot: needs a token');
  });
});

describe('an approve rule with no one else to decide it (V3)', () => {
  it('says at filing time that no one can decide it and what to configure, not to run a refused command', async () => {
    const { config } = await deployment(false);
    const call = await runCli(['call', 'file-write', '--params', '{"path":"top.txt","content":"1"}', '--config', config], { env: home.env });
    expect(call.code).toBe(3);
    expect(call.stderr).toMatch(/can be decided by no one: its caller 'local' may not approve it \(its rule does not allow self-approval\) and no other principal is configured\. Configure a principal who is role approver or admin .*or set self_approval: true on the rule/);
    expect(call.stderr).not.toContain('hldp approvals approve');
  });

  // review userZ9, U9-1: the CLI leaves out a principal whose token is not in the operator's shell, and then said no
  // other principal was configured, sending the operator to change a config that was right (alice then decided it)
  it('is not said of a request an approver the config declares may decide, though its token is not in this shell', async () => {
    const { config } = await deployment(true);
    const call = await runCli(['call', 'file-write', '--params', '{"path":"top.txt","content":"1"}', '--config', config], { env: home.env });
    expect(call.stderr).not.toMatch(/can be decided by no one|no other principal is configured/);
    expect(call.stderr).toMatch(/role approver or admin/);
  });

  it('is warned of by hldp validate --config and at hldp serve start', async () => {
    const { repo, config } = await deployment(false);
    const validate = await runCli(['validate', repo, '--config', config, '--json'], { env: home.env });
    expect(validate.code).toBe(0);
    const warnings = (JSON.parse(validate.stdout) as { warnings: Array<{ code: string; file: string; line: number; message: string }> }).warnings;
    expect(warnings.filter((warning) => warning.code === 'NO_APPROVER')).toMatchObject([{ file: expect.stringMatching(/reg\/policies\/writes\.hdlp$/), line: 8, message: expect.stringContaining('set self_approval: true on the rule') }]);
    const serve = await home.serve(['--config', config]);
    expect(serve.stderr()).toMatch(/hldp: WARNING: .*writes\.hdlp:8:5: warning: no configured principal is role approver or admin/);
  });

  it('is not warned of when an approver is configured', async () => {
    const { repo, config } = await deployment(true);
    const validate = await runCli(['validate', repo, '--config', config, '--json'], { env: home.env });
    expect(JSON.stringify(JSON.parse(validate.stdout).warnings)).not.toContain('NO_APPROVER');
  });
});

describe('an approval request as its agent and its approver see it (V10)', () => {
  it('202 says who decides and how to wait; hldp tail names who asked, for whom and why', async () => {
    const { config } = await deployment(true);
    const server = await home.serve(['--config', config], TOKENS);
    const answer = await request(server, 'POST', '/v1/call', { body: { tool: 'file-write', params: { path: 'top.txt', content: '1' } }, headers: { authorization: `Bearer ${LEAD}` } });
    expect(answer.status).toBe(202);
    const { id, message } = answer.json as { id: string; message: string };
    expect(message).toContain(`waits for role approver or admin to decide it before`);
    expect(message).toContain('not for its caller');
    expect(message).toContain(`GET /v1/approvals/${id}?wait=30`);
    expect(message).not.toMatch(/can be decided by no one/);
    const tail = await runCli(['tail', '--url', server.url, '--token', ALICE, '--after', '0', '--count', '1', '--types', 'approval.requested'], { env: home.env });
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).toMatch(new RegExp(`APPROVAL\\? file-write ${id} by lead for role approver or admin until \\S+: a write outside agent/ needs a person \\(policies/writes\\.hdlp:8:5\\)`));
  });
});
