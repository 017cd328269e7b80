// Review userZ6, F4(c). An approver who is no operator has their own token and the gateway's address, not its config,
// its database password or the agents' tokens; `hldp approvals` read the store itself and needed them. With `--url` it
// asks the running gateway over its HTTP API as the principal of its token: list, show, approve (the call runs at the
// gateway, its receipt printed here), deny — each as the API decides it for that principal.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { api, startPolicyGateway, TOKENS, WRITES_NEED_AN_APPROVER, type PolicyGateway } from '../policy/support.js';

describe('hldp approvals --url: the queue of a running gateway with one\'s own token (review userZ6 F4(c))', () => {
  let gateway: PolicyGateway;
  let shell: NodeJS.ProcessEnv = {};
  let empty = '';
  const file = async (name: string, content: string): Promise<string> => {
    const filed = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: name, content } } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(202);
    return filed.body.id as string;
  };
  beforeAll(async () => {
    gateway = await startPolicyGateway(WRITES_NEED_AN_APPROVER, { logLevel: 'warn' });
    // alice's shell, in a folder of her own: no config, no store, no repository, no one else's token
    empty = await mkdtemp(join(tmpdir(), 'hldp-approver-'));
    shell = { HLDP_TOKEN: TOKENS.alice, HLDP_CONFIG: undefined, HLDP_REPO: undefined, HLDP_API_TOKEN: undefined, HLDP_PRINCIPAL_ALICE_TOKEN: undefined, HLDP_PRINCIPAL_BOT_TOKEN: undefined, HLDP_CACHE_DIR: join(empty, 'cache'), HLDP_DATA_DIR: join(empty, 'data') };
  }, 180_000);
  afterAll(async () => {
    await gateway?.stop();
    if (empty) await rm(empty, { recursive: true, force: true });
  }, 60_000);

  it('lists, shows and approves as alice: the call runs at the gateway and its receipt is printed here', { timeout: 180_000 }, async () => {
    const id = await file('approved.txt', 'hi from bot\n');
    const list = await runCli(['approvals', 'list', '--url', gateway.url], { env: shell, cwd: empty });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toMatch(/file-write\s+by bot/);
    const show = await runCli(['approvals', 'show', id, '--json', '--url', gateway.url], { env: shell, cwd: empty });
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ approval: { id, status: 'pending', caller: 'bot', tool: 'file-write' } });
    const approve = await runCli(['approvals', 'approve', id, '--reason', 'looks fine', '--url', gateway.url], { env: shell, cwd: empty });
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stderr).toContain(`${id} approved by alice`);
    // the gateway ran it, and says so in the store it keeps: the request is decided, with alice's reason
    const after = await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' });
    expect(after.body).toMatchObject({ approval: { status: 'approved', decided_by: 'alice', decision_reason: 'looks fine' }, receipt: { ok: true, tool: 'file-write' } });
    expect(approve.stdout).toContain((after.body.receipt as { id: string }).id);
    // no store, no registry cache made in alice's folder
    expect(await readdir(empty)).toEqual([]);
    const again = await runCli(['approvals', 'approve', id, '--url', gateway.url], { env: shell, cwd: empty });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^APPROVAL_DECIDED: /m);
  });

  it('denies as alice, and an agent sees its own requests only and may not decide them', { timeout: 180_000 }, async () => {
    const id = await file('denied.txt', 'no\n');
    const asBot = { ...shell, HLDP_TOKEN: TOKENS.bot };
    const botList = await runCli(['approvals', 'list', '--json', '--url', gateway.url], { env: asBot, cwd: empty });
    expect(botList.code, botList.stderr).toBe(0);
    const mine = (JSON.parse(botList.stdout) as { approvals: Array<{ id: string; caller: string }> }).approvals;
    expect(mine.map((each) => each.id)).toContain(id);
    expect(mine.every((each) => each.caller === 'bot')).toBe(true);
    const botApprove = await runCli(['approvals', 'approve', id, '--url', gateway.url], { env: asBot, cwd: empty });
    expect(botApprove.code).toBe(1);
    expect(botApprove.stderr).toMatch(/^APPROVAL_FORBIDDEN: /m);
    const deny = await runCli(['approvals', 'deny', id, '--reason', 'not now', '--url', gateway.url], { env: shell, cwd: empty });
    expect(deny.code, deny.stderr).toBe(0);
    expect(deny.stderr).toContain(`${id} denied by alice`);
    const shown = await runCli(['approvals', 'show', id, '--url', gateway.url], { env: shell, cwd: empty });
    // a denied request: shown, exit 1 as the local command's
    expect(shown.code).toBe(1);
    expect(shown.stdout).toMatch(/decided\s+denied by alice .* via \S+: not now/);
  });

  it('says plainly when the token is refused, the address is not a gateway, or --url is given with --config', { timeout: 120_000 }, async () => {
    const refused = await runCli(['approvals', 'list', '--url', gateway.url], { env: { ...shell, HLDP_TOKEN: 'not-a-token-0123456789' }, cwd: empty });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^(UNAUTHORIZED|HTTP 401): /m);
    // a web page at the address (a wrong port, a proxy's sign-in): not read as an empty queue
    const page: Server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const port = (page.address() as { port: number }).port;
      const wrong = await runCli(['approvals', 'list', '--url', `http://127.0.0.1:${port}`], { env: shell, cwd: empty });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('content type text/html, not the gateway\'s JSON');
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
    const both = await runCli(['approvals', 'list', '--url', gateway.url, '--config', join(empty, 'hldp.yaml')], { env: shell, cwd: empty });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('leave out --config');
  });
});
