// Review userZ6, F4. An approver who is no operator, in a shell with the gateway's config and their own token only
// (HLDP_TOKEN and their principal's variable), ran `hldp approvals list` and was stopped: "principals.agent1: needs a
// token … HLDP_PRINCIPAL_AGENT1_TOKEN" — the CLI asked for every other principal's token, the agents' among them,
// though listing and showing requests only read the queue. `list` and `show` now leave out a principal whose token is
// not in the shell, as the read commands (receipts, list) do; only the principal acting must be known. `approve`,
// which runs the call here, still needs the gateway's settings whole.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { api, startPolicyGateway, TOKENS, WRITES_NEED_AN_APPROVER, type PolicyGateway } from '../policy/support.js';

describe('hldp approvals list and show in an approver\'s own shell (review userZ6 F4)', () => {
  let gateway: PolicyGateway;
  let id = '';
  let shell: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER, { logLevel: 'warn' });
    const filed = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'notes.txt', content: 'hi\n' } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    id = filed.body.id as string;
    // alice's shell: the gateway's config and store, her own token; not bot's token, nor the api_token
    shell = { HLDP_CACHE_DIR: join(gateway.folder, 'alice-cache'), HLDP_DATA_DIR: join(gateway.folder, 'data'), HLDP_WORKSPACE: join(gateway.folder, 'workspace'), HLDP_TOKEN: TOKENS.alice, HLDP_PRINCIPAL_ALICE_TOKEN: TOKENS.alice, HLDP_PRINCIPAL_BOT_TOKEN: undefined, HLDP_API_TOKEN: undefined };
  }, 180_000);
  afterAll(async () => gateway?.stop(), 60_000);

  it('lists and shows the pending request as alice, with no other principal\'s token in the shell', { timeout: 120_000 }, async () => {
    const list = await runCli(['approvals', 'list', '--config', gateway.configFile, '--repo', gateway.repo], { env: shell });
    expect(list.stderr).not.toContain('needs a token');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain('file-write');
    const show = await runCli(['approvals', 'show', id, '--json', '--config', gateway.configFile, '--repo', gateway.repo], { env: shell });
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ approval: { id, status: 'pending', caller: 'bot', tool: 'file-write' } });
  });

  it('names the variable of a principal left out when HLDP_TOKEN matches no principal at hand', { timeout: 120_000 }, async () => {
    const list = await runCli(['approvals', 'list', '--config', gateway.configFile, '--repo', gateway.repo], { env: { ...shell, HLDP_PRINCIPAL_ALICE_TOKEN: undefined } });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain("Left out, their token not in this shell: 'bot' (HLDP_PRINCIPAL_BOT_TOKEN), 'alice' (HLDP_PRINCIPAL_ALICE_TOKEN); if HLDP_TOKEN is yours as one of them, set that variable to it as well");
  });
});
