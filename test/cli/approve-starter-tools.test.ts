// Review userZ6, F13: `hldp approvals approve ID` run with only the store (no --config, no --repo) read this package's
// starter tools, and said the tool's definition and the policies "changed" between the request's commit and its own —
// true of what it read, but the operator's registry had not changed at all. It now says what it read and how to
// point it at the gateway's repository; the request stays pending.
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const NATIVE = fileURLToPath(new URL('../../native-repo', import.meta.url));
const BOT = 'bot-token-0123456789abcdef';
const HELD = ['name: held', 'author: ICE-GL-ZY001', 'why: A person looks at every command first.', 'approval:', '  - tools: [shell-exec]', '    decision: approve', '    reason: a person looks first', ''].join('\n');

describe('hldp approvals approve without the gateway\'s config (F13)', () => {
  it('says it read the starter tools and to pass --config, and decides nothing', async () => {
    const repo = join(home.path, 'reg');
    await cp(NATIVE, repo, { recursive: true });
    await mkdir(join(repo, 'policies'));
    await writeFile(join(repo, 'policies', 'held.hdlp'), HELD);
    const config = join(home.path, 'hldp.yaml');
    await writeFile(config, [`repository: { source: ${repo} }`, 'principals:', '  bot: { roles: [agent] }', ''].join('\n'));
    const server = await home.serve(['--config', config], { HLDP_PRINCIPAL_BOT_TOKEN: BOT });
    const filed = await request(server, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo hi' } }, headers: { authorization: `Bearer ${BOT}` } });
    expect(filed.status, JSON.stringify(filed.json)).toBe(202);
    const id = (filed.json as { id: string }).id;
    // the operator's shell: the store only (HLDP_DATA_DIR), as userZ6 ran it with HLDP_STORE_URL
    const approve = await runCli(['approvals', 'approve', id], { env: home.env });
    expect(approve.code, approve.stdout + approve.stderr).toBe(1);
    expect(approve.stderr).toContain('APPROVAL_MISMATCH: this process read the starter tools of this package (');
    expect(approve.stderr).toContain(`since no --repo or --config was given (nor HLDP_REPO or HLDP_CONFIG), not the repository request '${id}' was made over: run it with the gateway's config, hldp approvals approve ${id} --config FILE`);
    const show = await runCli(['approvals', 'show', id, '--config', config], { env: { ...home.env, HLDP_PRINCIPAL_BOT_TOKEN: BOT } });
    expect(show.stdout).toContain(`${id}  pending`);
    // with the gateway's config the same command runs it
    const again = await runCli(['approvals', 'approve', id, '--config', config], { env: { ...home.env, HLDP_PRINCIPAL_BOT_TOKEN: BOT } });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('hi');
  });
});
