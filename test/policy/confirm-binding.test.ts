import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runCli } from '../helpers/run-cli.js';
import { api, mcpClient, type PolicyGateway, startPolicyGateway, textOf, TOKENS, type Who } from './support.js';

// one real `hldp serve` with no policy: file-write's own require_confirm gives its caller a token
let gateway: PolicyGateway;
let workspace: string;

beforeAll(async () => {
  gateway = await startPolicyGateway({});
  workspace = join(gateway.folder, 'workspace');
});
afterAll(() => gateway?.stop());

const asked = async (path: string): Promise<string> => {
  const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path, content: 'ran\n', create_dirs: true } } });
  expect(pending).toMatchObject({ status: 202, body: { status: 'confirmation_required', token: expect.stringMatching(/^hldp_confirm_/) } });
  return pending.body.token as string;
};
const exists = (path: string) => readFile(join(workspace, path), 'utf8').then((text) => text, () => undefined);

describe('a confirmation token', () => {
  describe('when a principal other than its caller presents it', () => {
    it.each<Who>(['lead', 'alice', 'admin'])('answers %s as it answers an unknown token, runs nothing, and still runs for its caller', async (who) => {
      const path = `other/${who}.txt`;
      const token = await asked(path);
      const unknown = await api(gateway.url, 'POST', '/v1/confirm', { who, body: { token: 'hldp_confirm_no-such-token' } });
      const replayed = await api(gateway.url, 'POST', '/v1/confirm', { who, body: { token } });
      expect(replayed.status).toBe(unknown.status);
      expect(replayed.body).toEqual(unknown.body);
      expect(await exists(path)).toBeUndefined();
      const own = await api(gateway.url, 'POST', '/v1/confirm', { who: 'bot', body: { token } });
      expect(own).toMatchObject({ status: 200, body: { ok: true, tool: 'file-write', caller: 'bot', approval: { via: 'confirm', decided_by: 'bot' } } });
      expect(await exists(path)).toBe('ran\n');
    });

    it('answers the MCP confirm tool of another principal\'s session as for an unknown token', async () => {
      const token = await asked('other/mcp.txt');
      const client = await mcpClient(gateway.url, 'lead');
      try {
        const unknown = (await client.callTool({ name: 'confirm', arguments: { token: 'hldp_confirm_no-such-token' } })) as CallToolResult;
        const replayed = (await client.callTool({ name: 'confirm', arguments: { token } })) as CallToolResult;
        expect(replayed.isError).toBe(true);
        expect(textOf(replayed)).toBe(textOf(unknown));
      } finally {
        await client.close();
      }
      expect(await exists('other/mcp.txt')).toBeUndefined();
    });
  });

  describe('when its caller confirms it with hldp confirm over another repository than the gateway serves (review N, N7)', () => {
    it('decides nothing and leaves it pending, says where to confirm it, and it still runs when confirmed there', async () => {
      const path = 'elsewhere/cli.txt';
      const token = await asked(path);
      const env = { ...gateway.env, HLDP_TOKEN: TOKENS.bot };
      // the package's own starter tools: not the gateway's repository, so another commit
      const elsewhere = await runCli(['confirm', token, '--repo', join(process.cwd(), 'native-repo'), '--config', gateway.configFile, '--json'], { env });
      expect(elsewhere.code, elsewhere.stderr + elsewhere.stdout).not.toBe(0);
      expect(elsewhere.stdout + elsewhere.stderr).toContain('stays pending');
      expect(await exists(path)).toBeUndefined();
      const pending = await api(gateway.url, 'GET', '/v1/approvals', { who: 'bot' });
      expect(JSON.stringify(pending.body)).toContain(path);
      const here = await runCli(['confirm', token, '--repo', gateway.repo, '--config', gateway.configFile, '--json'], { env });
      expect(here.code, here.stderr + here.stdout).toBe(0);
      expect(JSON.parse(here.stdout)).toMatchObject({ ok: true, tool: 'file-write', caller: 'bot' });
      expect(await exists(path)).toBe('ran\n');
    });
  });
});
