// Review userZ4, as the operator hit them with real `hldp` processes:
// - F14: an approve rule whose approvers name a principal that does not exist (`principals: [alcie]`, alice meant)
//   was warned of at `hldp validate --config` and at `hldp serve`'s start with "only 'local', the operator at the CLI,
//   can decide this rule's requests" — and `local` was refused (APPROVAL_FORBIDDEN).
// - F10: principals `ci-bot` and `ci_bot` both read HLDP_PRINCIPAL_CI_BOT_TOKEN; the start said they had "the same
//   token" of an operator who had set one.
// - F9: the config schema said listening beyond loopback "requires api_token"; principals are enough.
// - F11: `GET /v1/approvals?status=all` was 400 while `hldp approvals list --status all` worked.
import { readFileSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { expectDocumented, request } from '../helpers/http-server.js';

const home = useServiceHome('warn');
const NATIVE = fileURLToPath(new URL('../../native-repo', import.meta.url));
const TOKENS = {
  HLDP_PRINCIPAL_BOSS_TOKEN: 'boss-token-0123456789ab',
  HLDP_PRINCIPAL_ALICE_TOKEN: 'alice-token-0123456789ab',
  HLDP_PRINCIPAL_BOT_A_TOKEN: 'bot-a-token-0123456789ab',
};

/** A copy of the starter registry whose one policy makes every file-write wait for `approvers`, and a config with boss, alice and bot-a. */
async function deployment(approvers: string, principals = ['  boss: { roles: [admin] }', '  alice: { roles: [approver] }', '  bot-a: { roles: [agent] }']): Promise<{ repo: string; config: string }> {
  const repo = join(home.path, 'reg');
  await cp(NATIVE, repo, { recursive: true });
  await mkdir(join(repo, 'policies'));
  await writeFile(join(repo, 'policies', 'team.hdlp'), ['name: team', 'author: ICE-GL-ZY001', 'why: a person looks at every write', 'approval:', '  - tools: [file-write]', '    decision: approve', `    approvers: ${approvers}`, ''].join('\n'));
  const config = join(home.path, 'hldp.yaml');
  await writeFile(config, [`repository: { source: ${repo} }`, 'principals:', ...principals, ''].join('\n'));
  return { repo, config };
}

describe('NO_APPROVER for a rule whose approvers name an unknown principal (F14)', () => {
  it('says no one can decide its requests, not even local, and names the likely typo; local is indeed refused', { timeout: 180_000 }, async () => {
    const { repo, config } = await deployment('{ principals: [alcie] }');
    const env = { ...home.env, ...TOKENS };
    const validate = await runCli(['validate', repo, '--config', config, '--json'], { env });
    expect(validate.code, validate.stderr).toBe(0);
    const warnings = (JSON.parse(validate.stdout) as { warnings: Array<{ code: string; message: string }> }).warnings.filter((warning) => warning.code === 'NO_APPROVER');
    expect(warnings).toHaveLength(1);
    const message = warnings[0]!.message;
    expect(message).not.toContain("only 'local'");
    expect(message).toContain("no one can decide this rule's requests, not even 'local', the operator at the CLI");
    expect(message).toContain("'alcie' (did you mean 'alice'?) is no configured principal's name (the configured ones are boss, alice, bot-a)");
    const serve = await home.serve(['--config', config], TOKENS);
    expect(serve.stderr()).toContain("warning: no configured principal is principal alcie, and self_approval is not true: no one can decide this rule's requests, not even 'local'");
    // what the warning says is what happens: local (no HLDP_TOKEN) may not decide bot-a's request
    const call = await request(serve, 'POST', '/v1/call', { body: { tool: 'file-write', params: { path: 'w.txt', content: '1' } }, headers: { authorization: `Bearer ${TOKENS.HLDP_PRINCIPAL_BOT_A_TOKEN}` } });
    expect(call.status).toBe(202);
    const approve = await runCli(['approvals', 'approve', (call.json as { id: string }).id, '--config', config], { env });
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain("APPROVAL_FORBIDDEN: principal 'local' may not decide this request");
  });

  it('still says local can decide where the approvers have roles', { timeout: 120_000 }, async () => {
    const { repo, config } = await deployment('{ roles: [approver] }', ['  bot-a: { roles: [agent] }']);
    const validate = await runCli(['validate', repo, '--config', config, '--json'], { env: { ...home.env, ...TOKENS } });
    const warnings = (JSON.parse(validate.stdout) as { warnings: Array<{ code: string; message: string }> }).warnings.filter((warning) => warning.code === 'NO_APPROVER');
    expect(warnings).toMatchObject([{ message: expect.stringContaining("only 'local', the operator at the CLI, can decide this rule's requests") }]);
    expect(warnings[0]!.message).not.toContain('did you mean');
  });
});

describe('two principals whose names read one variable (F10)', () => {
  it('refuses the start naming the variable and saying to rename one, not "the same token"', { timeout: 120_000 }, async () => {
    const config = join(home.path, 'hldp.yaml');
    await writeFile(config, 'principals:\n  ci-bot: { roles: [agent] }\n  ci_bot: { roles: [agent] }\n');
    const run = await runCli(['serve', '--port', '0', '--config', config], { env: { ...home.env, HLDP_PRINCIPAL_CI_BOT_TOKEN: 'ci-bot-token-0123456789' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `hldp serve: ${config}:3:3: principals.ci_bot: 'ci-bot' and 'ci_bot' both read their token from HLDP_PRINCIPAL_CI_BOT_TOKEN (every character of a name but a letter or digit becomes '_'), so they got one token; rename one of them (its token then comes from its own variable)\n`,
    );
  });
});

describe("the config schema's listen.host (F9)", () => {
  it('says principals are enough beyond loopback, as the start error does', { timeout: 120_000 }, async () => {
    const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../../schemas/config.schema.json', import.meta.url)), 'utf8')) as { properties: { listen: { properties: { host: { description: string } } } } };
    const description = schema.properties.listen.properties.host.description;
    expect(description).not.toMatch(/requires api_token\./);
    expect(description).toContain('api_token, or principals');
    // a gateway with principals alone listens beyond loopback
    const config = join(home.path, 'hldp.yaml');
    await writeFile(config, 'principals:\n  alice: { roles: [approver] }\n');
    const serve = await home.serve(['--host', '0.0.0.0', '--config', config], { HLDP_PRINCIPAL_ALICE_TOKEN: TOKENS.HLDP_PRINCIPAL_ALICE_TOKEN });
    expect(serve.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
  });
});

describe('GET /v1/approvals?status=all (F11)', () => {
  it('lists every status, as hldp approvals list --status all does; another word is still 400 naming all', { timeout: 180_000 }, async () => {
    const { config } = await deployment('{ roles: [approver] }');
    const serve = await home.serve(['--config', config], TOKENS);
    const bot = { authorization: `Bearer ${TOKENS.HLDP_PRINCIPAL_BOT_A_TOKEN}` };
    const alice = { authorization: `Bearer ${TOKENS.HLDP_PRINCIPAL_ALICE_TOKEN}` };
    const ids: string[] = [];
    for (const path of ['a.txt', 'b.txt']) ids.push(((await request(serve, 'POST', '/v1/call', { body: { tool: 'file-write', params: { path, content: '1' } }, headers: bot })).json as { id: string }).id);
    expect((await request(serve, 'POST', `/v1/approvals/${ids[0]}/deny`, { body: { reason: 'no' }, headers: alice })).status).toBe(200);
    const all = await request(serve, 'GET', '/v1/approvals?status=all', { headers: alice });
    expect(all.status, JSON.stringify(all.json)).toBe(200);
    expectDocumented('/v1/approvals', 'GET', all);
    const listed = (all.json as { approvals: Array<{ id: string; status: string }> }).approvals.map((approval) => [approval.id, approval.status]);
    expect(listed).toEqual([[ids[1], 'pending'], [ids[0], 'denied']]);
    const cli = await runCli(['approvals', 'list', '--status', 'all', '--json', '--config', config], { env: { ...home.env, ...TOKENS, HLDP_TOKEN: TOKENS.HLDP_PRINCIPAL_ALICE_TOKEN } });
    expect((JSON.parse(cli.stdout) as { approvals: Array<{ id: string; status: string }> }).approvals.map((approval) => [approval.id, approval.status])).toEqual(listed);
    const wrong = await request(serve, 'GET', '/v1/approvals?status=everything', { headers: alice });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ code: 'INVALID_REQUEST', error: "'status' must be one of pending, approved, denied, expired, cancelled, all" });
    expectDocumented('/v1/approvals', 'GET', wrong);
  });
});
