import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

// review userZ5 (an agent developer over HTTP, following README), against a real `hldp serve` over a git registry:
// F4  POST /v1/match with X-HLDP-Session was neither recorded nor ranked by the session: `hldp suggest examples`
//     learnt nothing from an agent built from `hldp export --json`, which maps tool_find to that route;
// F12 an alias of a tool a push broke or removed was answered "write its definition at tools/<alias>/TOOL.hdlp";
// F14 timeout_ms beside the meta-tool tool_call (and confirm) was accepted and dropped.

const home = useServiceHome('warn');
const ADMIN_TOKEN = 'fixe19-admin-token-0123456789abcdef';
const BOT_TOKEN = 'fixe19-bot-token-0123456789abcdef';

const shellTool = (name: string, fields: Record<string, string> = {}): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${name}] }`, ...fields });

async function registry(files: Record<string, string>): Promise<string> {
  const repo = join(home.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, files);
  return repo;
}

async function send(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, any> }> {
  const response = await fetch(url + path, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : {} };
}

describe('POST /v1/match in a session (review userZ5, F4)', () => {
  it('is recorded as the session\'s match, so hldp suggest examples proposes the request for the tool called next', async () => {
    const repo = await registry({ 'tools/wordcount/TOOL.hdlp': shellTool('wordcount', { intent: 'count the words of a text' }) });
    const serve = await home.serve(['--repo', repo]);
    const session = (await send(serve.url, 'POST', '/v1/sessions', {})).json.id as string;
    const header = { 'X-HLDP-Session': session };
    const matched = await send(serve.url, 'POST', '/v1/match', { intent: 'tally the vocabulary size' }, header);
    expect(matched.status).toBe(200);
    expect(matched.json).toHaveProperty('found');
    expect((await send(serve.url, 'POST', '/v1/call', { tool: 'wordcount', params: {} }, header)).json).toMatchObject({ ok: true });
    // another principal's (or a forgotten) session is not found, as on the session's other routes
    expect((await send(serve.url, 'POST', '/v1/match', { intent: 'count words' }, { 'X-HLDP-Session': 'no-such-session' })).json).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(await serve.stop()).toBe(0);

    const run = await runCli(['suggest', 'examples', '--json', '--repo', repo], { env: home.env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).suggestions).toEqual([
      expect.objectContaining({ tool: 'wordcount', examples: [expect.objectContaining({ text: 'tally the vocabulary size', count: 1, sessions: 1 })] }),
    ]);
  }, 120_000);
});

describe('an alias of a tool a push broke or removed (review userZ5, F12)', () => {
  it('is answered as its tool: TOOL_BROKEN for the broken one, "removed at commit" for the deleted one, never "write it"', async () => {
    const repo = await registry({
      'tools/greet/TOOL.hdlp': shellTool('greet', { aliases: '[hello, 打招呼]' }),
      'tools/tmpalias/TOOL.hdlp': shellTool('tmpalias', { aliases: '[salute]' }),
    });
    // the operator (an admin, HLDP_API_TOKEN) is told of a broken tool; bot, an agent, is not
    const configFile = join(home.path, 'config.yaml');
    await writeFile(configFile, `principals:\n  bot: { roles: [agent], token_sha256: ${createHash('sha256').update(BOT_TOKEN).digest('hex')} }\n`);
    const serve = await home.serve(['--repo', repo, '--config', configFile], { HLDP_API_TOKEN: ADMIN_TOKEN });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await send(serve.url, 'POST', '/v1/call', { tool: 'hello', params: {} }, admin)).json).toMatchObject({ ok: true, tool: 'greet' });
    const pushed = await commitFiles(repo, { 'tools/greet/TOOL.hdlp': shellTool('greet', { aliases: '[hello, 打招呼]', author: '[userZ5' }), 'tools/tmpalias/TOOL.hdlp': null }, 'break greet, remove tmpalias');
    expect((await send(serve.url, 'POST', '/v1/scan', undefined, admin)).json).toMatchObject({ commit: pushed, changed: true });

    const toBot = await send(serve.url, 'POST', '/v1/call', { tool: 'hello', params: {} }, { authorization: `Bearer ${BOT_TOKEN}` });
    expect(toBot.status).toBe(404);
    expect(toBot.json.suggestion).toMatch(/^no tool you may use is named 'hello'; .*ask a person/);
    expect(JSON.stringify(toBot.json)).not.toMatch(/greet|write its definition|TOOL\.hdlp/);
    for (const alias of ['hello', '打招呼', 'HELLO']) {
      const broken = await send(serve.url, 'POST', '/v1/call', { tool: alias, params: {} }, admin);
      expect(broken.status).toBe(409);
      expect(broken.json).toMatchObject({ code: 'TOOL_BROKEN', tool: 'greet' });
      expect(broken.json.error).toContain(`'${alias}' is an alias of 'greet': tool 'greet' is in the repository but its definition is broken`);
      expect(JSON.stringify(broken.json)).not.toMatch(/write its definition|is in the repository yet/);
    }
    const removed = await send(serve.url, 'POST', '/v1/call', { tool: 'salute', params: {} }, admin);
    expect(removed.status).toBe(404);
    expect(removed.json).toMatchObject({ code: 'TOOL_NOT_FOUND', removed_at: pushed });
    expect(removed.json.error).toContain(`'salute', an alias of tool 'tmpalias', was removed from the repository at commit ${pushed.slice(0, 12)}`);
    expect(removed.json.suggestion).not.toMatch(/write its definition|is in the repository yet/);
    expect(removed.json).not.toHaveProperty('aliases');
    expect((await send(serve.url, 'GET', '/v1/tools/salute', undefined, admin)).json).toMatchObject({ removed_at: pushed });
    // a name never served is still a missing tool, with the advice to write it
    expect((await send(serve.url, 'POST', '/v1/call', { tool: 'howdy', params: {} }, admin)).json.suggestion).toContain('write its definition at tools/howdy/TOOL.hdlp');
  }, 120_000);
});

describe('timeout_ms beside the meta-tools over HTTP (review userZ5, F14)', () => {
  it("is tool_call's and confirm's inner deadline, checked as a direct call's; beside a meta-tool that runs nothing it is a 400", async () => {
    const repo = await registry({
      'tools/nap/TOOL.hdlp': shellTool('nap', { constraints: '{ timeout_ms: 1500, max_timeout_ms: 5000 }' }),
      'tools/guarded/TOOL.hdlp': shellTool('guarded', { constraints: '{ timeout_ms: 1500, max_timeout_ms: 5000, require_confirm: true }' }),
    });
    const serve = await home.serve(['--repo', repo]);
    const header = { 'X-HLDP-Session': (await send(serve.url, 'POST', '/v1/sessions', {})).json.id as string };

    const called = await send(serve.url, 'POST', '/v1/call', { tool: 'tool_call', params: { name: 'nap', params: {} }, timeout_ms: 4500 }, header);
    expect(called.status).toBe(200);
    expect(called.json).toMatchObject({ ok: true, tool: 'nap', timeout_ms: 4500, timeout_from: 'call' });
    const tooLong = await send(serve.url, 'POST', '/v1/call', { tool: 'tool_call', params: { name: 'nap', params: {} }, timeout_ms: 9000 }, header);
    expect(tooLong.status).toBe(422);
    expect(tooLong.json).toMatchObject({ code: 'TIMEOUT_NOT_ALLOWED', requested_ms: 9000, allowed_ms: 5000 });

    const waiting = await send(serve.url, 'POST', '/v1/call', { tool: 'tool_call', params: { name: 'guarded', params: {} } }, header);
    expect(waiting.status).toBe(202);
    const confirmed = await send(serve.url, 'POST', '/v1/call', { tool: 'confirm', params: { token: waiting.json.token }, timeout_ms: 4000 }, header);
    expect(confirmed.status).toBe(200);
    expect(confirmed.json).toMatchObject({ ok: true, tool: 'guarded', timeout_ms: 4000 });

    const listed = await send(serve.url, 'POST', '/v1/call', { tool: 'toolset', params: { action: 'list' }, timeout_ms: 4000 }, header);
    expect(listed.status).toBe(400);
    expect(listed.json).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(listed.json.error).toContain("'timeout_ms' does not go with 'toolset'");
  }, 120_000);
});
