import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const TOKENS = {
  admin: 'approval-params-admin-token-0123456789',
  bot: 'approval-params-bot-token-0123456789',
  alice: 'approval-params-alice-token-0123456789',
} as const;
type Who = keyof typeof TOKENS;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const CONFIG = `principals:
  bot: { roles: [agent], token_sha256: ${digest(TOKENS.bot)} }
  alice: { roles: [approver], token_sha256: ${digest(TOKENS.alice)} }
`;

let temp: { path: string; cleanup: () => Promise<void> };
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-console-approval-params-');
  const repo = await initRepository(join(temp.path, 'repo'));
  // a query of open keys, as the starter registry's http-request has: the agent names every key
  await commitFiles(repo, {
    'tools/status/TOOL.hdlp': makeToolYaml('status', {
      executor: 'shell', method: 'run', intent: 'reads a status with a query, after a person confirms it',
      params_schema: '{ query: { type: object, additionalProperties: { type: string } } }', shell: '{ argv: [echo, fine] }',
      constraints: '{ require_confirm: true }',
    }),
  });
  const configFile = join(temp.path, 'config.yaml');
  await writeFile(configFile, CONFIG);
  server = await spawnService(
    ['serve', '--port', '0', '--config', configFile],
    { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.admin },
    / at (http:\/\/[\d.:]+)\n/,
  );
});
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

async function signIn(who: Who): Promise<string> {
  const response = await fetch(`${server.url}/console/sign-in`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(server.url).origin },
    body: new URLSearchParams({ token: TOKENS[who] }),
  });
  expect(response.status).toBe(303);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

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
      const alice = await signIn('alice');

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
});
