import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';

// review Z6, Z6-5: one principal opening five sessions in a second made `hldp suggest examples --min 5` print
// "5× in 5 session(s)" for its text, as if five agents agreed, and every one of those calls had failed. Real
// `hldp serve`, sessions over HTTP, then `hldp suggest examples` as a process.

const TOKENS = { HLDP_PRINCIPAL_ALICE_TOKEN: 'alice-token-0123456789abcdef', HLDP_PRINCIPAL_BOB_TOKEN: 'bob-token-0123456789abcdef' };
const REQUEST = 'delete every backup on the production database';
const home = useServiceHome('warn');

async function serve(): Promise<ServiceProcess> {
  // the workspace is a git repository, so that git-ops status runs and succeeds
  await mkdir(workspace(), { recursive: true });
  await git(workspace(), 'init', '-q');
  await writeFile(join(home.path, 'config.yaml'), 'principals:\n  alice: { roles: [agent], tools: [git-ops] }\n  bob: { roles: [agent], tools: [git-ops] }\n');
  return restart();
}

const workspace = (): string => join(home.path, 'workspace');
const restart = (): Promise<ServiceProcess> => home.serve(['--config', join(home.path, 'config.yaml')], { ...TOKENS, HLDP_WORKSPACE: workspace() });

/** One HTTP session of `token`'s principal: the request (which finds nothing), then the call. */
async function session(server: ServiceProcess, token: string, call: { tool: string; params: unknown }): Promise<{ ok?: boolean; code?: string }> {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const opened = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: auth, body: '{}' });
  expect(opened.status).toBe(201);
  const headers = { ...auth, 'x-hldp-session': opened.headers.get('x-hldp-session')! };
  const asked = await fetch(`${server.url}/v1/call`, { method: 'POST', headers, body: JSON.stringify({ intent: REQUEST }) });
  expect(await asked.json()).toMatchObject({ found: false });
  const answer = await fetch(`${server.url}/v1/call`, { method: 'POST', headers, body: JSON.stringify(call) });
  return (await answer.json()) as { ok?: boolean; code?: string };
}

/** `hldp suggest examples --json --min N` over the store the (stopped) server wrote: the texts proposed for git-ops. */
async function suggested(min: number): Promise<unknown[]> {
  const run = await runCli(['suggest', 'examples', '--json', '--min', String(min)], { env: home.env });
  expect(run.code).toBe(0);
  const report = JSON.parse(run.stdout) as { suggestions: Array<{ tool: string; examples: unknown[] }> };
  return report.suggestions.flatMap((suggestion) => suggestion.examples);
}

describe('hldp suggest examples, from sessions of a real hldp serve', () => {
  describe('when one principal asks the same thing in five sessions', () => {
    it('counts one principal: nothing at --min 2, and says "by 1 principal(s)"; a second principal makes two', async () => {
      const server = await serve();
      for (let i = 0; i < 5; i++) expect(await session(server, TOKENS.HLDP_PRINCIPAL_ALICE_TOKEN, { tool: 'git-ops', params: { op: 'status' } })).toMatchObject({ ok: true });
      // a stopped gateway has written every usage event it was holding
      expect(await server.stop()).toBe(0);
      expect(await suggested(2)).toEqual([]);
      expect(await suggested(1)).toEqual([expect.objectContaining({ text: REQUEST, count: 5, sessions: 5, principals: 1, by: ['alice'] })]);
      const text = await runCli(['suggest', 'examples'], { env: home.env });
      expect(text.stdout).toContain(`- "${REQUEST}"    # 5× in 5 session(s) by 1 principal(s) (alice); was found: false\n`);

      const again = await restart();
      expect(await session(again, TOKENS.HLDP_PRINCIPAL_BOB_TOKEN, { tool: 'git-ops', params: { op: 'status' } })).toMatchObject({ ok: true });
      expect(await again.stop()).toBe(0);
      expect(await suggested(2)).toEqual([expect.objectContaining({ text: REQUEST, count: 6, sessions: 6, principals: 2, by: ['alice', 'bob'] })]);
    });
  });

  describe('when the calls after the request failed', () => {
    it('counts none of them: a non-zero exit, a refused tool, invalid params', async () => {
      const server = await serve();
      // git show of a commit the repository does not have: the tool ran and exited non-zero
      expect(await session(server, TOKENS.HLDP_PRINCIPAL_ALICE_TOKEN, { tool: 'git-ops', params: { op: 'show', ref: 'no-such-commit' } })).toMatchObject({ ok: false, code: 'NONZERO_EXIT' });
      expect(await session(server, TOKENS.HLDP_PRINCIPAL_BOB_TOKEN, { tool: 'git-ops', params: { op: 'show', ref: 'no-such-commit' } })).toMatchObject({ ok: false, code: 'NONZERO_EXIT' });
      expect(await session(server, TOKENS.HLDP_PRINCIPAL_BOB_TOKEN, { tool: 'shell-exec', params: { cmd: 'true' } })).toMatchObject({ code: 'TOOL_FORBIDDEN' });
      expect(await session(server, TOKENS.HLDP_PRINCIPAL_ALICE_TOKEN, { tool: 'git-ops', params: { op: 'nonsense' } })).toMatchObject({ code: 'INVALID_PARAMS' });
      expect(await server.stop()).toBe(0);
      expect(await suggested(1)).toEqual([]);
    });
  });
});
