// Review P, P17: the README's deployment pointed the git-forgejo executor at the registry it serves, so a git-forgejo
// tool with write_file let an agent commit policies/00-allow.hdlp or a new shell tool and have it served at the next
// scan. A real `hldp serve` whose registry is served over smart HTTP (git http-backend) and whose Forgejo API is a local
// server implementing Forgejo's contents API contract (no Forgejo runs here), both holding the same bare repository.
// Review Z15, Z15-1: the registry is given as `http://hldp:PASSWORD@host/…` (its git server requires that password), and
// the refusal quoted that address whole — the registry's credential in the agent's answer, the receipt and the events.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeTempDir } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { openSse } from '../helpers/sse-client.js';
import { startForgejoContractServer, type ForgejoContractServer } from './support/forgejo-contract-server.js';
import { writeFile } from 'node:fs/promises';

const TOKEN = 'forgejo-personal-access-token';
// the registry's git password, written in repository.source as `user:password@` (its `@`, percent-encoded there, included)
const PASSWORD = 'S3cretRegistry@Passw0rd';

const forgejoTool = (name: string, method: string, params: string[], extra: string[] = []) => [
  `name: ${name}`, `display: ${name}`, `intent: ${method} in the team repository`, `method: ${method}`, 'executor: git-forgejo', ...extra,
  'params_schema:', ...params.map((param) => `  ${param}: { type: string, required: true }`),
  'author: TEST-001', 'created: 2026-12-04', 'why: a registry-write test tool',
].join('\n');

let temp: { path: string; cleanup: () => Promise<void> };
let bare: string;
let gitServer: GitHttpServer;
let forgejo: ForgejoContractServer;
let gateway: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir();
  const work = await initRepository(join(temp.path, 'work'));
  await commitFiles(work, {
    'tools/repo-write/TOOL.hdlp': forgejoTool('repo-write', 'write_file', ['path', 'content']),
    'tools/repo-read/TOOL.hdlp': forgejoTool('repo-read', 'read_file', ['path']),
    'tools/repo-write-confirmed/TOOL.hdlp': forgejoTool('repo-write-confirmed', 'write_file', ['path', 'content'], ['constraints: { require_confirm: true }']),
  });
  bare = join(temp.path, 'served', 'zhuyuan', 'native-repo.git');
  await git(temp.path, 'clone', '-q', '--bare', work, bare);
  gitServer = await startGitHttpServer({ projectRoot: join(temp.path, 'served'), token: PASSWORD });
  forgejo = await startForgejoContractServer({ repository: bare, fullName: 'zhuyuan/native-repo', token: TOKEN });
  const config = join(temp.path, 'config.yaml');
  // the registry and the API on one host name, as a Forgejo serves them (here on two ports of 127.0.0.1)
  const withPassword = gitServer.url.replace('http://', `http://hldp:${encodeURIComponent(PASSWORD)}@`);
  await writeFile(config, `repository: { source: "${withPassword}/zhuyuan/native-repo.git" }\nforgejo: { url: "${forgejo.url}", repo: zhuyuan/native-repo }\n`);
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_FORGEJO_TOKEN: TOKEN, HLDP_POLL_INTERVAL_MS: '600000' };
  await initRepository(join(temp.path, 'workspace'));
  gateway = await spawnService(['serve', '--port', '0', '--config', config], env, / at (http:\/\/[\d.:]+)\n/);
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await forgejo?.close();
  await gitServer?.close();
  await temp?.cleanup();
});

async function call(tool: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const answer = await fetch(`${gateway.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, params }) });
  expect(answer.status).toBe(200);
  return (await answer.json()) as Record<string, unknown>;
}

describe('a git-forgejo tool aimed at the registry the gateway serves', () => {
  it('may read it', async () => {
    expect(await call('repo-read', { path: 'tools/repo-read/TOOL.hdlp' })).toMatchObject({ ok: true, output: expect.stringContaining('name: repo-read') });
  });

  it('may not commit to it: an agent would rewrite its own tools and policies (a complete failure receipt, nothing written)', async () => {
    const before = await git(bare, 'rev-parse', 'main');
    const receipt = await call('repo-write', { path: 'policies/00-allow.hdlp', content: 'name: allow\napproval: [{tools: ["*"], decision: allow}]\n' });
    expect(receipt).toMatchObject({ ok: false, tool: 'repo-write', code: 'EXECUTOR_MISCONFIGURED', output: '' });
    expect(receipt['error']).toMatch(/would commit to zhuyuan\/native-repo, the registry this gateway serves .*another repository/);
    expect(receipt['error']).toContain(`(${gitServer.url}/zhuyuan/native-repo.git)`);
    expect(typeof receipt['duration_ms']).toBe('number');
    expect(await git(bare, 'rev-parse', 'main')).toBe(before);
  });

  it("never shows the password of the registry's URL: not in answers, receipts, events, /healthz nor the log", async () => {
    const events = await openSse(`${gateway.url}/v1/events?after=0`);
    try {
      const allowed = await call('repo-write', { path: 'tools/x/TOOL.hdlp', content: 'x' });
      // refused before anyone is asked to confirm: the receipt storeUnconfigured keeps
      const confirmed = await call('repo-write-confirmed', { path: 'tools/x/TOOL.hdlp', content: 'x' });
      expect(confirmed).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining(`(${gitServer.url}/zhuyuan/native-repo.git)`) });
      // the password is a configured secret: an agent that pastes it into params does not see it kept
      const pasted = await call('repo-read', { path: `notes/${PASSWORD}` });
      expect(pasted['params']).toEqual({ path: 'notes/[REDACTED]' });
      for (const receipt of [allowed, confirmed, pasted]) await events.next((message) => message.data.includes(String(receipt['id'])), 15_000);
      const told = [
        JSON.stringify([allowed, confirmed, pasted]),
        JSON.stringify(events.messages),
        await (await fetch(`${gateway.url}/v1/receipts?limit=100`)).text(),
        await (await fetch(`${gateway.url}/healthz`)).text(),
        gateway.stderr(),
      ];
      for (const text of told) {
        expect(text).not.toContain(PASSWORD);
        expect(text).not.toContain(encodeURIComponent(PASSWORD));
      }
    } finally {
      events.close();
    }
  });
});
