import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compactSchema, createMatcher } from '../../src/matcher/index.js';
import { scanOnce } from '../../src/scanner/index.js';
import { makeTempDir } from '../helpers/git.js';
import { callTool, connectHttp, connectStdio, firstText, type Connected } from './support.js';

/** What the matcher says about these params, word for word: MCP must pass it on unchanged. */
async function matcherWords(tool: string, params: Record<string, unknown>): Promise<string> {
  const temp = await makeTempDir();
  try {
    const lookup = createMatcher(await scanOnce(REPO, { cacheDir: temp.path })).lookup(tool, params);
    if (!lookup.found || lookup.valid) throw new Error(`expected invalid params for ${tool}`);
    return lookup.errorMessage;
  } finally {
    await temp.cleanup();
  }
}

const REPO = 'native-repo';
const connections: Connected[] = [];
afterEach(async () => {
  while (connections.length) await connections.pop()!.close();
});

describe.each([
  ['stdio (node bin/hldp.js mcp)', connectStdio],
  ['Streamable HTTP (/mcp)', connectHttp],
])('MCP server over %s', (_transport, connect) => {
  const open = async () => {
    const connected = await connect(REPO);
    connections.push(connected);
    return connected;
  };

  describe('when a client lists the tools', () => {
    it('returns the meta-tools and every registry tool with title, intent, params schema and justified hints', async () => {
      const { client } = await open();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait', 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
      expect(byName['shell-exec']).toMatchObject({
        title: 'Shell命令执行',
        description: '在服务器上执行一条shell命令并返回原始结果 (run one shell command on the server and return its raw output)',
        inputSchema: { type: 'object', required: ['cmd'], properties: { cmd: { type: 'string' } } },
        _meta: { 'hldp/name': 'shell-exec' },
      });
      expect(byName['shell-exec']!.annotations).toEqual({ title: 'Shell命令执行' });
      expect(byName['file-write']!.annotations).toMatchObject({ destructiveHint: true });
      expect(byName['file-read']!.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName['confirm']!.annotations).toMatchObject({ destructiveHint: true });
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    });
  });

  describe('when a call succeeds', () => {
    it('returns the raw output as the text, and the receipt as structuredContent', async () => {
      const { client } = await open();
      const result = await callTool(client, 'shell-exec', { cmd: 'echo hello' });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('hello\n');
      expect(result.content).toHaveLength(1);
      expect(result.structuredContent).toMatchObject({ ok: true, tool: 'shell-exec', output: 'hello\n', exit_code: 0, code: null, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    });
  });

  describe('when the tool fails', () => {
    it('returns isError with the raw stderr, and the output beside it', async () => {
      const { client } = await open();
      const result = await callTool(client, 'shell-exec', { cmd: 'echo partial; echo "路径不存在: /nope" >&2; exit 4' });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        { type: 'text', text: '路径不存在: /nope\n', _meta: { 'hldp/stream': 'error' } },
        { type: 'text', text: 'partial\n', _meta: { 'hldp/stream': 'output' } },
      ]);
      expect(result.structuredContent).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 4, error: '路径不存在: /nope\n' });
    });
  });

  describe('when params do not fit the schema', () => {
    it('returns isError naming each param, with the schema as the matcher words it', async () => {
      const { client } = await open();
      const result = await callTool(client, 'shell-exec', { cmd: 42 });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe(await matcherWords('shell-exec', { cmd: 42 }));
      expect(firstText(result)).toMatch(/^invalid params for 'shell-exec': 'cmd' must be string\. Expected params: \{ cmd: string/);
      expect(firstText(result)).toBe("invalid params for 'shell-exec': 'cmd' must be string. Expected params: { cmd: string (non-empty), cwd?: string }");
      expect(result.structuredContent).toMatchObject({ code: 'INVALID_PARAMS', tool: 'shell-exec', problems: [{ param: 'cmd', message: 'must be string' }] });
    });
  });

  describe('when the tool is unknown', () => {
    it('returns isError with a did-you-mean, not a protocol error', async () => {
      const { client } = await open();
      const result = await callTool(client, 'shel-exec', { cmd: 'echo hello' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/^unknown tool 'shel-exec'; did you mean 'shell-exec'\?\ncall 'shell-exec', the registered tool spelled like 'shel-exec'; if no registered tool fits, 此工具尚不在仓库中/);
      expect(result.structuredContent).toMatchObject({ found: false, code: 'TOOL_NOT_FOUND', near: [{ name: 'shell-exec' }] });
    });

    // review L, L7: a name of a megabyte was compared letter by letter with every name and alias, on the event loop
    it('answers a name half a megabyte long with the tool it shares a word with, and bounds the names the meta-tools take', async () => {
      const { client } = await open();
      const long = await callTool(client, `shell-exec${'x'.repeat(1 << 19)}`, {});
      expect(long.isError).toBe(true);
      expect(long.structuredContent).toMatchObject({ found: false, code: 'TOOL_NOT_FOUND', near: [{ name: 'shell-exec' }] });
      const meta = await callTool(client, 'tool_call', { name: 'x'.repeat(257), params: {} });
      expect(meta.isError).toBe(true);
      expect(meta.structuredContent).toMatchObject({ code: 'INVALID_PARAMS', error: expect.stringContaining('must NOT have more than 256 characters') });
    });
  });

  describe('when a tool requires confirmation', () => {
    it('returns the pending call and its token, runs nothing, and the confirm tool runs it once', async () => {
      const { client, workspace } = await open();
      const pending = await callTool(client, 'file-write', { path: 'note.txt', content: 'written by MCP\n' });
      expect(pending.isError).toBeFalsy();
      const { token, status, params } = pending.structuredContent as { token: string; status: string; params: unknown };
      expect(status).toBe('confirmation_required');
      expect(params).toEqual({ path: 'note.txt', content: 'written by MCP\n', append: false, create_dirs: false });
      expect(firstText(pending)).toContain(`call the confirm tool with {"token": "${token}"}`);
      await expect(readFile(join(workspace, 'note.txt'), 'utf8')).rejects.toThrow();

      const confirmed = await callTool(client, 'confirm', { token });
      expect(confirmed.isError).toBeFalsy();
      expect(confirmed.structuredContent).toMatchObject({ ok: true, tool: 'file-write', confirmation: expect.stringMatching(/^apr_/), approval: expect.objectContaining({ status: 'approved', via: 'confirm' }) });
      expect(await readFile(join(workspace, 'note.txt'), 'utf8')).toBe('written by MCP\n');

      const again = await callTool(client, 'confirm', { token });
      expect(again.isError).toBe(true);
      expect(again.structuredContent).toMatchObject({ code: 'CONFIRMATION_INVALID', reason: 'used' });
    });
  });

  describe('when the confirm tool gets no token', () => {
    it('returns isError with its schema', async () => {
      const { client } = await open();
      const result = await callTool(client, 'confirm', {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe(`invalid params for 'confirm': 'token' is required but missing. Expected params: ${compactSchema({ type: 'object', properties: { token: { type: 'string', minLength: 1 } }, required: ['token'] })}`);
    });
  });

  describe('when tool_find gets an intent', () => {
    it('returns git-ops for 查看最近的提交记录, with its params schema, and runs nothing', async () => {
      const { client } = await open();
      const result = await callTool(client, 'tool_find', { intent: '查看最近的提交记录' });
      expect(result.isError).toBeFalsy();
      const answer = JSON.parse(firstText(result));
      expect(answer).toEqual(result.structuredContent);
      expect(answer.found).toBe(true);
      expect(answer.candidates.length).toBeGreaterThanOrEqual(1);
      expect(answer.candidates.length).toBeLessThanOrEqual(3);
      expect(answer.candidates[0]).toMatchObject({ name: 'git-ops', params_schema: { properties: { op: { default: 'log' } } } });
    });

    it('returns the confidence of the match (issue #11: a short request once answered found:false)', async () => {
      const { client } = await open();
      const result = await callTool(client, 'tool_find', { intent: 'what changed in the repo recently' });
      expect(result.structuredContent).toMatchObject({ found: true, confidence: expect.stringMatching(/^(high|low)$/), stage: 'lexical' });
      expect((result.structuredContent as { candidates: Array<{ name: string }> }).candidates[0]!.name).toBe('git-ops');
    });

    it('puts the tool its context names first', async () => {
      const { client } = await open();
      const result = await callTool(client, 'tool_find', { intent: 'open the file', context: { tools: ['file-write'] } });
      expect((result.structuredContent as { candidates: Array<{ name: string }> }).candidates[0]!.name).toBe('file-write');
    });

    it('returns isError when the context is not an object', async () => {
      const { client } = await open();
      const result = await callTool(client, 'tool_find', { intent: 'edit the file', context: 'file-write' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/'context' must be object/);
    });

    it('returns found:false with the suggestion when nothing fits', async () => {
      const { client } = await open();
      const result = await callTool(client, 'tool_find', { intent: 'xyzzy plugh' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ found: false, suggestion: expect.stringContaining('此工具尚不在仓库中') });
    });

    it('returns isError when the intent is missing', async () => {
      const { client } = await open();
      const result = await callTool(client, 'tool_find', { query: 'git log' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/^invalid params for 'tool_find': 'intent' is required but missing; 'query' is not a parameter of this tool\. Expected params: \{ intent: string/);
    });
  });
});
