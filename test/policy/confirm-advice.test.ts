import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { api, type PolicyGateway, startPolicyGateway, TOKENS, type Who } from './support.js';

// Review userW, W4: the 202 of a call by api_token's principal said "Confirm this exact call with hldp confirm TOKEN";
// run as written it answered "no call waits for this confirmation token; call the tool again" while the request was
// pending, and HLDP_TOKEN alone was told "no config file, so no principals", untrue for api_token's principal. The
// advice now names what makes the command act as the caller, the refusals say what is missing, and the advice works.
// W6: an expired token read "already decided … it runs at most once", as if it had run.

// one real `hldp serve` with no policy: file-write's own require_confirm gives its caller a token
let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway({});
});
afterAll(() => gateway?.stop());

const written = (path: string) => readFile(join(gateway.folder, 'workspace', path), 'utf8').catch(() => undefined);
/** The environment without the variables named: a shell that lacks them. */
const without = (...names: string[]): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(gateway.env).map(([key, value]) => [key, names.includes(key) ? undefined : value]));

/** `who` calls file-write over HTTP: the 202's body (its token, request id and message). */
async function asked(who: Who, path: string): Promise<{ token: string; id: string; message: string }> {
  const call = await api(gateway.url, 'POST', '/v1/call', { who, body: { tool: 'file-write', params: { path, content: 'ran\n', create_dirs: true } } });
  expect(call, JSON.stringify(call.body)).toMatchObject({ status: 202, body: { status: 'confirmation_required', token: expect.stringMatching(/^hldp_confirm_/) } });
  return call.body;
}

describe('the confirmation advice to a caller that is not local', () => {
  it('for api_token\'s admin names HLDP_TOKEN and HLDP_API_TOKEN; a bare hldp confirm says whose the token is; the advice runs it', { timeout: 120_000 }, async () => {
    const { token, id, message } = await asked('admin', 'admin.txt');
    expect(message).toContain(`hldp confirm ${token} with HLDP_TOKEN set to the token this call was made with and HLDP_API_TOKEN set to the gateway's api_token`);
    expect(message).toContain(`POST /v1/confirm {"token": "${token}"} and this call's Authorization`);

    const bare = await runCli(['confirm', token, '--repo', gateway.repo], { env: without('HLDP_API_TOKEN') });
    expect(bare.code, bare.stdout + bare.stderr).toBe(1);
    expect(bare.stderr).not.toContain('no call waits');
    expect(bare.stderr).toContain(`this confirmation token is for a call of 'admin' (request '${id}', tool 'file-write'`);
    expect(bare.stderr).toContain(`hldp approvals approve ${id}`);
    expect(bare.stderr).toContain('HLDP_API_TOKEN');

    const tokenAlone = await runCli(['confirm', token, '--repo', gateway.repo], { env: { ...without('HLDP_API_TOKEN'), HLDP_TOKEN: TOKENS.admin } });
    expect(tokenAlone.code).toBe(2);
    expect(tokenAlone.stderr).toContain("If it is the gateway's api_token (principal 'admin'), set HLDP_API_TOKEN to it as well");
    expect(await written('admin.txt')).toBeUndefined();
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval).toMatchObject({ status: 'pending' });

    // as the advice says: HLDP_TOKEN and HLDP_API_TOKEN, no config file
    const advised = await runCli(['confirm', token, '--repo', gateway.repo], { env: { ...without(), HLDP_TOKEN: TOKENS.admin } });
    expect(advised.code, advised.stdout + advised.stderr).toBe(0);
    expect(await written('admin.txt')).toBe('ran\n');
  });

  it('for a principal of the config file names --config and its token variable; the advice runs it', { timeout: 120_000 }, async () => {
    const { token, message } = await asked('bot', 'bot.txt');
    expect(message).toMatch(/HLDP_TOKEN set to the token this call was made with and the gateway's --config FILE .*principals\.bot.*HLDP_PRINCIPAL_BOT_TOKEN/);
    const advised = await runCli(['confirm', token, '--repo', gateway.repo, '--config', gateway.configFile], { env: { ...without(), HLDP_TOKEN: TOKENS.bot } });
    expect(advised.code, advised.stdout + advised.stderr).toBe(0);
    expect(await written('bot.txt')).toBe('ran\n');
  });

  it('still answers another principal who presents the token as for an unknown token', async () => {
    const { token } = await asked('bot', 'leaked.txt');
    const unknown = await api(gateway.url, 'POST', '/v1/confirm', { who: 'admin', body: { token: 'hldp_confirm_no-such-token' } });
    const replayed = await api(gateway.url, 'POST', '/v1/confirm', { who: 'admin', body: { token } });
    expect(replayed.body).toEqual(unknown.body);
  });
});

describe('an expired confirmation token', () => {
  it('says it expired and nothing ran, to its caller and to an approver, not that it was decided', { timeout: 90_000 }, async () => {
    // a gateway of its own whose tokens last 3 s
    await gateway.stop();
    gateway = await startPolicyGateway({}, { config: 'confirmation_ttl_ms: 3000\n' });
    const { token, id } = await asked('bot', 'late.txt');
    // the gateway's sweep expires it once its 4 s are up
    await expect.poll(async () => (await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'bot' })).body.approval.status, { timeout: 30_000, interval: 250 }).toBe('expired');
    const confirmed = await api(gateway.url, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
    expect(confirmed.body).toMatchObject({ code: 'CONFIRMATION_INVALID', reason: 'expired' });
    expect(confirmed.body.error).toMatch(/^this confirmation token expired at \S+, before anyone confirmed it \(request 'apr_[^']+'\): nothing ran\. Call the tool again for a new token$/);
    const approved = await api(gateway.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(approved.body.code).toBe('APPROVAL_DECIDED');
    expect(approved.body.error).toContain('with no one deciding it: nothing ran');
    expect(approved.body.error).not.toContain('runs at most once');
    expect(await written('late.txt')).toBeUndefined();
  });
});
