import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { runCli } from '../helpers/run-cli.js';
import { api, type PolicyGateway, startPolicyGateway, TOKENS, WRITES_NEED_AN_APPROVER } from './support.js';

// A configured secret an agent pastes into the params of a call waiting for a person must be shown to nobody: the
// event and the receipt redacted it, while GET /v1/approvals/:id showed api_token and the console showed every one.
const FORGEJO_TOKEN = 'forgejo-token-0123456789abcdef';

let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER, { env: { HLDP_FORGEJO_URL: 'http://127.0.0.1:9', HLDP_FORGEJO_TOKEN: FORGEJO_TOKEN, HLDP_FORGEJO_REPO: 'o/r' } });
});
afterAll(() => gateway?.stop());

describe('a pending call whose params hold configured secrets (found in review E10)', () => {
  it('shows each as [REDACTED] in GET /v1/approvals/:id, GET /v1/approvals and the console, as its event does', async () => {
    const content = `admin ${TOKENS.admin} approver ${TOKENS.alice} forgejo ${FORGEJO_TOKEN}`;
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'leak.txt', content } } });
    expect(pending).toMatchObject({ status: 202, body: { status: 'approval_required' } });
    const id = pending.body.id as string;
    const secrets = [TOKENS.admin, TOKENS.alice, FORGEJO_TOKEN];
    const expected = 'admin [REDACTED] approver [REDACTED] forgejo [REDACTED]';

    const one = await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'alice' });
    expect(one.body.approval.params).toMatchObject({ path: 'leak.txt', content: expected });
    const list = await api(gateway.url, 'GET', '/v1/approvals?status=pending', { who: 'alice' });
    expect(list.body.approvals.find((approval: { id: string }) => approval.id === id).params.content).toBe(expected);

    const cookie = await signInToConsole(gateway.url, TOKENS.alice);
    const page = await (await fetch(`${gateway.url}/console/approvals`, { headers: { cookie } })).text();
    expect(page).toContain(id);
    expect(page).toContain(expected);
    for (const secret of secrets) {
      expect(JSON.stringify(one.body)).not.toContain(secret);
      expect(JSON.stringify(list.body)).not.toContain(secret);
      expect(page).not.toContain(secret);
    }
  });

  it('shows each as [REDACTED] in hldp approvals list and show too, as an approver reads them in a terminal', async () => {
    const content = `admin ${TOKENS.admin} forgejo ${FORGEJO_TOKEN}`;
    const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'leak2.txt', content } } });
    const id = pending.body.id as string;
    const env = { ...gateway.env, HLDP_TOKEN: TOKENS.alice };
    const runs = [
      await runCli(['approvals', 'show', id, '--repo', gateway.repo, '--config', gateway.configFile], { env }),
      await runCli(['approvals', 'show', id, '--json', '--repo', gateway.repo, '--config', gateway.configFile], { env }),
      await runCli(['approvals', 'list', '--json', '--repo', gateway.repo, '--config', gateway.configFile], { env }),
    ];
    expect(runs[0]!.stdout).toContain('admin [REDACTED] forgejo [REDACTED]');
    expect(JSON.parse(runs[1]!.stdout).approval.params.content).toBe('admin [REDACTED] forgejo [REDACTED]');
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain(TOKENS.admin);
      expect(run.stdout).not.toContain(FORGEJO_TOKEN);
    }
  });
});
