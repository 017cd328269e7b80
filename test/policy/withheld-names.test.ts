import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';

// bot may use git-ops alone: shell-exec, which its base list leaves out, is forbidden to it and never named to it
const BOT = { authorization: 'Bearer bot-token-0123456789abcdef' };
const ADMIN = { authorization: 'Bearer admin-token-0123456789abcdef' };

let server: Awaited<ReturnType<typeof startTestServer>>;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir('hldp-withheld-');
  const config = join(temp.path, 'brush-holder.yaml');
  await writeFile(config, 'principals:\n  bot: { roles: [agent], tools: [git-ops] }\n');
  server = await startTestServer('native-repo', { HLDP_CONFIG: config, HLDP_PRINCIPAL_BOT_TOKEN: BOT.authorization.slice(7), HLDP_API_TOKEN: ADMIN.authorization.slice(7) });
});
afterAll(async () => {
  await server.cleanup();
  await temp.cleanup();
});

async function botSession(): Promise<Record<string, string>> {
  const opened = await request(server, 'POST', '/v1/sessions', { headers: BOT });
  expect(opened.status).toBe(201);
  const session = { ...BOT, 'X-HLDP-Session': opened.json.id as string };
  expect((await request(server, 'GET', `/v1/sessions/${opened.json.id}/tools/shell-exec`, { headers: session })).json).toMatchObject({ state: 'forbidden' });
  return session;
}

describe('a tool forbidden to the caller (found in review)', () => {
  describe('when an intent finds nothing', () => {
    it('is not among the near misses of tool_find or POST /v1/match', async () => {
      const found = await request(server, 'POST', '/v1/call', { headers: await botSession(), body: { tool: 'tool_find', params: { intent: 'builds' } } });
      expect(found.json).toMatchObject({ found: false });
      expect(found.text).not.toContain('shell-exec');
      const matched = await request(server, 'POST', '/v1/match', { headers: BOT, body: { intent: 'builds' } });
      expect(matched.json).toMatchObject({ found: false });
      expect(matched.text).not.toContain('shell-exec');
      // to whom it is not forbidden, it is named
      expect((await request(server, 'POST', '/v1/match', { headers: ADMIN, body: { intent: 'builds' } })).text).toContain('shell-exec');
    });
  });

  describe('when a name one typo from it is called', () => {
    it('is not the "did you mean" of the 404, with or without a session, nor of tool_load', async () => {
      for (const headers of [BOT, await botSession()]) {
        const called = await request(server, 'POST', '/v1/call', { headers, body: { tool: 'shel-exec', params: {} } });
        expect(called).toMatchObject({ status: 404, json: { code: 'TOOL_NOT_FOUND' } });
        expect(called.text).not.toContain('shell-exec');
      }
      const loaded = await request(server, 'POST', '/v1/call', { headers: await botSession(), body: { tool: 'tool_load', params: { name: 'shel-exec' } } });
      expect(loaded.json).toMatchObject({ code: 'TOOL_NOT_FOUND' });
      expect(loaded.text).not.toContain('shell-exec');
      const admin = await request(server, 'POST', '/v1/call', { headers: ADMIN, body: { tool: 'shel-exec', params: {} } });
      expect(admin.json.error).toContain("did you mean 'shell-exec'");
    });
  });
});
