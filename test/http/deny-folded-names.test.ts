// Review Z21-7 (the rest): a called name resolves to a tool folded (case, NFKC, white space, ё as е), but the lists
// that restrict names did not fold alike: `sessions.deny: [подсчет слов]`, or a policy rule naming the tool so, did not
// cover its alias `подсчёт слов`, yet a call of `подсчет слов` ran it. And U11-13: the rejections filter did not
// resolve aliases. Real processes: `hldp serve` over a real git repository, with a real config file.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';

const home = useServiceHome('warn');

const echo = (name: string, said: string, aliases = '[]'): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${said}] }`, aliases });

async function call(server: ServiceProcess, tool: string): Promise<{ status: number; json: { ok?: boolean; tool?: string; output?: string; error?: string | null; code?: string } }> {
  const response = await request(server, 'POST', '/v1/call', { body: { tool, params: {} } });
  return { status: response.status, json: response.json as { ok?: boolean; tool?: string; output?: string; error?: string | null } };
}

async function repository(policy?: string): Promise<string> {
  const repo = await initRepository(join(home.path, 'repo'));
  await commitFiles(repo, {
    'tools/word-count/TOOL.hdlp': echo('word-count', 'COUNTED', '[подсчёт слов]'),
    'tools/greet/TOOL.hdlp': echo('greet', 'HELLO'),
    ...(policy ? { 'policies/guard.hdlp': policy } : {}),
  });
  return repo;
}

// every spelling a call resolves to word-count by
const SPELLINGS = ['подсчет слов', 'подсчёт слов', 'ПОДСЧЕТ  СЛОВ', 'word-count', 'Word-Count'];

describe('a sessions.deny entry naming a tool by a folded spelling of its alias', () => {
  for (const entry of ['подсчет слов', 'ПОДСЧЁТ  СЛОВ']) {
    it(`'${entry}' refuses every call that resolves to the tool, and lets the others run`, async () => {
      const repo = await repository();
      const config = join(home.path, 'config.yaml');
      await writeFile(config, `sessions: { deny: [${JSON.stringify(entry)}] }\n`);
      const server = await home.serve(['--repo', repo], { HLDP_CONFIG: config });
      for (const tool of SPELLINGS) {
        // on main: 200, COUNTED (the entry matched the alias only as written, ё and single space)
        const called = await call(server, tool);
        expect(called, tool).toMatchObject({ status: 403, json: { code: 'TOOL_FORBIDDEN' } });
        expect(called.json.error).toMatch(/sessions\.deny/);
      }
      expect((await call(server, 'greet')).json).toMatchObject({ ok: true, output: 'HELLO\n' });
      // the refusals are kept under the tool's name, and a filter naming it by any spelling finds them (U11-13)
      for (const tool of ['подсчет слов', 'WORD-COUNT']) {
        const listed = await request(server, 'GET', `/v1/rejections?tool=${encodeURIComponent(tool)}`);
        expect((listed.json as { rejections: Array<{ tool: string }> }).rejections.map((rejection) => rejection.tool), tool).toEqual(SPELLINGS.map(() => 'word-count'));
      }
    }, 120_000);
  }
});

describe('a policy rule naming a tool by a folded spelling of its alias', () => {
  for (const entry of ['подсчет слов', 'ПОДСЧЁТ  СЛОВ']) {
    it(`'${entry}' in a deny rule denies every call that resolves to the tool, and the policy is read, not refused`, async () => {
      const policy = `name: guard\nauthor: TEST-001\nwhy: agents never count words\napproval:\n  - tools: [${JSON.stringify(entry)}]\n    decision: deny\n    reason: no counting\n`;
      const repo = await repository(policy);
      const server = await home.serve(['--repo', repo]);
      for (const tool of SPELLINGS) {
        // on main: the policy was refused (UNKNOWN_MEMBER), and every call with it
        expect((await call(server, tool)).json, tool).toMatchObject({ ok: false, tool: 'word-count', error: expect.stringContaining('denied, nothing ran: no counting') });
      }
      expect((await call(server, 'greet')).json).toMatchObject({ ok: true, output: 'HELLO\n' });
    }, 120_000);
  }

  it('an access rule naming it so gates every call that resolves to the tool', async () => {
    const policy = 'name: guard\nauthor: TEST-001\nwhy: only approvers count words\naccess:\n  - tools: ["подсчет слов"]\n    roles: [approver]\n';
    const repo = await repository(policy);
    const config = join(home.path, 'config.yaml');
    await writeFile(config, `principals:\n  agent: { roles: [agent], token_sha256: ${createHash('sha256').update('agent-token-0123456789').digest('hex')} }\n`);
    const server = await home.serve(['--repo', repo], { HLDP_CONFIG: config });
    const as = { authorization: 'Bearer agent-token-0123456789' };
    for (const tool of SPELLINGS) {
      const called = await request(server, 'POST', '/v1/call', { body: { tool, params: {} }, headers: as });
      // on main: the policy was refused, and every call with it, greet's too
      expect(called.status, `${tool}: ${JSON.stringify(called.json)}`).toBe(403);
      expect((called.json as { error: string }).error).toMatch(/policies\/guard\.hdlp/);
    }
    const greeted = await request(server, 'POST', '/v1/call', { body: { tool: 'greet', params: {} }, headers: as });
    expect(greeted.json).toMatchObject({ ok: true, output: 'HELLO\n' });
  }, 120_000);
});
