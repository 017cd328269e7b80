import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { startConsoleGateway, tokenSha256, type ConsoleGateway } from './support.js';

const TOKENS = {
  admin: 'approval-params-admin-token-0123456789',
  bot: 'approval-params-bot-token-0123456789',
  alice: 'approval-params-alice-token-0123456789',
} as const;
const CONFIG = `principals:
  bot: { roles: [agent], token_sha256: ${tokenSha256(TOKENS.bot)} }
  alice: { roles: [approver], token_sha256: ${tokenSha256(TOKENS.alice)} }
`;

let server: ConsoleGateway;

// a query of open keys, as the starter registry's http-request has: the agent names every key
let repository: string;

async function statusRepository(folder: string): Promise<string> {
  const repo = await initRepository(join(folder, 'repo'));
  repository = repo;
  await commitFiles(repo, {
    'tools/status/TOOL.hdlp': makeToolYaml('status', {
      executor: 'shell', method: 'run', intent: 'reads a status with a query, after a person confirms it',
      params_schema: '{ query: { type: object, additionalProperties: { type: string } } }', shell: '{ argv: [echo, fine] }',
      constraints: '{ require_confirm: true }',
    }),
  });
  return repo;
}

beforeAll(async () => {
  server = await startConsoleGateway({ repository: statusRepository, config: CONFIG, apiToken: TOKENS.admin });
});
afterAll(() => server?.stop());

const pageOf = async (path: string, cookie: string): Promise<string> => {
  const response = await fetch(`${server.url}${path}`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return response.text();
};

describe('the console\'s approval views', () => {
  describe('when an agent puts part of a call under keys that look secret', () => {
    it('shows the approver those values as they will run, names the keys, and hides only the gateway\'s own secrets', async () => {
      const query = { api_key: 'x&admin=1&delete=all', private_key: '../../../etc', cookie: 'session=agent', note: `uses ${TOKENS.admin}` };
      const response = await fetch(`${server.url}/v1/call`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.bot}` },
        body: JSON.stringify({ tool: 'status', params: { query } }),
      });
      expect(response.status).toBe(202);
      const { id } = (await response.json()) as { id: string };
      const alice = await signInToConsole(server.url, TOKENS.alice);

      for (const page of [await pageOf('/console/approvals', alice), await pageOf(`/console/approvals/${encodeURIComponent(id)}`, alice)]) {
        expect(page).toContain(id);
        expect(page).toContain('&quot;api_key&quot;: &quot;x&amp;admin=1&amp;delete=all&quot;');
        expect(page).toContain('&quot;private_key&quot;: &quot;../../../etc&quot;');
        expect(page).toContain('&quot;cookie&quot;: &quot;session=agent&quot;');
        expect(page).toMatch(/data-secret-keys="3">Named like credentials, shown as they will be sent: <code>query\.api_key, query\.cookie, query\.private_key<\/code>/);
        // a configured secret (the API token here) is the one value masked
        expect(page).toContain('&quot;note&quot;: &quot;uses [REDACTED]&quot;');
        expect(page).not.toContain(TOKENS.admin);
      }
    });
  });

  describe('when an agent puts one of the gateway\'s own secrets in the params (review userZ6 F12)', () => {
    it('tells the approver which secret it is, never its value, and that approving sends it as written: in the console and in hldp approvals show', async () => {
      const response = await fetch(`${server.url}/v1/call`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.bot}` },
        body: JSON.stringify({ tool: 'status', params: { query: { content: `token=${TOKENS.admin}` } } }),
      });
      expect(response.status).toBe(202);
      const { id } = (await response.json()) as { id: string };
      const alice = await signInToConsole(server.url, TOKENS.alice);
      const told = 'Holds a secret of this gateway: the API token (api_token). Shown as [REDACTED], it is sent as written: approving hands it to the tool in clear';
      for (const page of [await pageOf('/console/approvals', alice), await pageOf(`/console/approvals/${encodeURIComponent(id)}`, alice)]) {
        const start = page.indexOf(`data-approval="${id}"`);
        const card = page.slice(start, page.indexOf('</li>', start));
        expect(card).toContain('&quot;content&quot;: &quot;token=[REDACTED]&quot;');
        expect(card).toMatch(/<p class="notice" data-secrets-held="1">/);
        expect(card).toContain(told);
        expect(page).not.toContain(TOKENS.admin);
      }
      // the operator's CLI over the same store and config, as alice
      const env = {
        HLDP_REPO: repository, HLDP_CACHE_DIR: join(server.folder, 'cli-cache'), HLDP_DATA_DIR: join(server.folder, 'data'), HLDP_WORKSPACE: server.folder,
        HLDP_API_TOKEN: TOKENS.admin, HLDP_TOKEN: TOKENS.alice,
      };
      const shown = await runCli(['approvals', 'show', id, '--config', join(server.folder, 'config.yaml')], { env });
      expect(shown.stderr).toBe('');
      expect(shown.stdout).toContain('"content":"token=[REDACTED]"');
      expect(shown.stdout).toContain(`secrets   ${told}`);
      expect(shown.stdout).not.toContain(TOKENS.admin);
      const json = await runCli(['approvals', 'show', id, '--json', '--config', join(server.folder, 'config.yaml')], { env });
      expect(JSON.parse(json.stdout)).toMatchObject({ secrets_held: ['the API token (api_token)'], approval: { params: { query: { content: 'token=[REDACTED]' } } } });
    });
  });
});
