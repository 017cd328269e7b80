import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, type ExecutionContext, type ForgejoConfig } from '../../src/executors/index.js';
import { commitFiles, git, initRepository } from '../helpers/git.js';
import { gitText } from './support/bare-git.js';
import { startForgejoContractServer, type ForgejoContractServer } from './support/forgejo-contract-server.js';
import { makeToolDefinition } from './support/tool-definitions.js';

const TOKEN = 'forgejo-personal-access-token';
const AUTHOR = { name: 'Zhuyuan Agent', email: 'agent@hldp.test' };

let folder: string;
let bare: string;
let forgejo: ForgejoContractServer;
let config: ForgejoConfig;
let firstCommit: string;
let concurrentWriter: (() => Promise<void>) | undefined;

function forgejoTool(method: string, overrides: Parameters<typeof makeToolDefinition>[0] = {}) {
  return makeToolDefinition({ name: `forgejo-${method}`, executor: 'git-forgejo', method, ...overrides });
}

async function run(method: string, params: Record<string, unknown>, context: ExecutionContext = { forgejo: config }) {
  return execute(forgejoTool(method), params, context);
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'hldp-forgejo-'));
  const work = await initRepository(join(folder, 'work'));
  firstCommit = await commitFiles(work, { 'README.md': 'first version\n', 'tools/a/TOOL.hdlp': 'name: a\n', 'tools/b/TOOL.hdlp': 'name: b\n' }, 'commit 1');
  for (let index = 2; index <= 5; index += 1) await commitFiles(work, { 'README.md': `version ${index}\n` }, `commit ${index}`);
  await commitFiles(work, { 'docs/guide.md': '# 指南\n' }, 'commit 6: docs');
  bare = join(folder, 'served.git');
  await git(folder, 'clone', '-q', '--bare', work, bare);
  forgejo = await startForgejoContractServer({
    repository: bare,
    fullName: 'zhuyuan/native-repo',
    token: TOKEN,
    maxPageSize: 2,
    treePageSize: 2,
    beforeWrite: () => concurrentWriter?.() ?? Promise.resolve(),
  });
  config = { url: forgejo.url, token: TOKEN, repo: 'zhuyuan/native-repo', author: AUTHOR };
});
afterAll(async () => {
  await forgejo.close();
  await rm(folder, { recursive: true, force: true });
});

describe('git-forgejo executor against a Forgejo API contract server', () => {
  describe('when the method is read_file', () => {
    it('returns the file’s raw content decoded from base64', async () => {
      const result = await run('read_file', { path: 'docs/guide.md' });
      expect(result).toEqual({
        ok: true,
        output: '# 指南\n',
        error: null,
        stderr: '',
        code: null,
        exit_code: null,
        signal: null,
        timed_out: false,
        output_bytes: Buffer.byteLength('# 指南\n'),
        cut_bytes: 0,
        duration_ms: expect.any(Number),
      });
    });

    it('returns the content at an older ref', async () => {
      expect((await run('read_file', { path: 'README.md', ref: firstCommit })).output).toBe('first version\n');
    });

    it('returns the bytes as base64 when asked', async () => {
      expect((await run('read_file', { path: 'README.md', encoding: 'base64' })).output).toBe(Buffer.from('version 5\n').toString('base64'));
    });

    it('returns HTTP_ERROR with the 404 and Forgejo’s message for a missing file', async () => {
      const result = await run('read_file', { path: 'nope.md' });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR' });
      expect(result.error).toMatch(/answered HTTP 404: \{"message":"object does not exist/);
    });

    it('returns INVALID_PARAMS for a folder, pointing to list_tree', async () => {
      expect(await run('read_file', { path: 'docs' })).toMatchObject({ ok: false, code: 'INVALID_PARAMS', error: expect.stringContaining('list_tree') });
    });

    it.each(['../../../user', 'docs/../../x', './README.md'])('returns INVALID_PARAMS for %s, which could reach another endpoint', async (path) => {
      expect(await run('read_file', { path })).toMatchObject({ ok: false, code: 'INVALID_PARAMS' });
    });
  });

  describe('when the method is list_commits', () => {
    it('returns the newest commits up to the limit, across pages smaller than the limit', async () => {
      const result = await run('list_commits', { limit: 5 });
      const commits = JSON.parse(result.output) as Array<{ sha: string; commit: { message: string } }>;
      expect(commits.map((commit) => commit.commit.message.trim())).toEqual(['commit 6: docs', 'commit 5', 'commit 4', 'commit 3', 'commit 2']);
    });

    it('refuses a limit past 1,000 commits, which a schema may allow, instead of reading the history page after page', async () => {
      expect(await run('list_commits', { limit: 1_000_000_000 })).toMatchObject({ ok: false, code: 'INVALID_PARAMS', error: expect.stringContaining("'limit' may be at most 1000") });
      expect(JSON.parse((await run('list_commits', { limit: 1000 })).output)).toHaveLength(6);
    });

    it('returns only the commits touching a path, at a ref', async () => {
      const result = await run('list_commits', { path: 'docs/guide.md', limit: 10 });
      expect(JSON.parse(result.output)).toHaveLength(1);
      const atFirst = JSON.parse((await run('list_commits', { ref: firstCommit, limit: 10 })).output) as unknown[];
      expect(atFirst).toHaveLength(1);
    });
  });

  describe('when the method is list_tree', () => {
    it('returns every entry, reading all the truncated pages', async () => {
      const entries = JSON.parse((await run('list_tree', {})).output) as Array<{ path: string; type: string }>;
      expect(entries.map((entry) => entry.path).sort()).toEqual(['README.md', 'docs', 'docs/guide.md', 'tools', 'tools/a', 'tools/a/TOOL.hdlp', 'tools/b', 'tools/b/TOOL.hdlp']);
    });

    it('returns the entries under a path at an older ref', async () => {
      const entries = JSON.parse((await run('list_tree', { ref: firstCommit, path: 'tools/a' })).output) as Array<{ path: string }>;
      expect(entries.map((entry) => entry.path)).toEqual(['tools/a', 'tools/a/TOOL.hdlp']);
    });

    it('returns HTTP_ERROR for a ref that does not exist', async () => {
      expect(await run('list_tree', { ref: 'no-such-branch' })).toMatchObject({ ok: false, code: 'HTTP_ERROR', error: expect.stringContaining('404') });
    });
  });

  describe('when the method is write_file', () => {
    it('creates a new file as one commit by the configured author (POST, 201)', async () => {
      const result = await run('write_file', { path: 'notes/new.md', content: 'created\n', message: 'add a note' });
      expect(result).toMatchObject({ ok: true });
      expect(JSON.parse(result.output)).toMatchObject({ content: { path: 'notes/new.md' }, commit: { message: 'add a note' } });
      expect(await gitText(bare, ['show', 'main:notes/new.md'])).toBe('created');
      expect(await gitText(bare, ['log', '-1', '--format=%an <%ae>|%s', 'main'])).toBe('Zhuyuan Agent <agent@hldp.test>|add a note');
    });

    it('updates an existing file with its current blob sha (PUT, 200)', async () => {
      const result = await run('write_file', { path: 'README.md', content: 'updated\n' });
      expect(result).toMatchObject({ ok: true });
      expect(await gitText(bare, ['show', 'main:README.md'])).toBe('updated');
      expect(await gitText(bare, ['log', '-1', '--format=%s', 'main'])).toBe('Update README.md');
    });

    it('returns HTTP_ERROR with the 409 when another writer changed the file in between', async () => {
      concurrentWriter = async () => {
        concurrentWriter = undefined;
        const forgejoAsOther = { forgejo: { ...config, author: { name: 'Other', email: 'other@hldp.test' } } };
        await run('write_file', { path: 'README.md', content: 'the other writer\n' }, forgejoAsOther);
      };
      const result = await run('write_file', { path: 'README.md', content: 'mine\n' });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR' });
      expect(result.error).toMatch(/HTTP 409: \{"message":"sha does not match/);
      expect(await gitText(bare, ['show', 'main:README.md'])).toBe('the other writer');
    });

    it('returns HTTP_ERROR with the 422 for content that is not base64', async () => {
      const result = await run('write_file', { path: 'x.bin', content: 'not base64!', encoding: 'base64' });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR', error: expect.stringContaining('HTTP 422') });
    });

    it('returns HTTP_ERROR with the 404 for a branch that does not exist', async () => {
      const result = await run('write_file', { path: 'x.md', content: 'x', branch: 'no-such-branch' });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR', error: expect.stringContaining('HTTP 404') });
    });
  });

  describe('when the method is create_issue', () => {
    it('returns the created issue (201) as Forgejo’s JSON', async () => {
      const result = await run('create_issue', { title: '工具执行失败', body: 'stderr attached', labels: [3] });
      expect(result).toMatchObject({ ok: true });
      expect(JSON.parse(result.output)).toMatchObject({ number: 1, title: '工具执行失败', body: 'stderr attached', state: 'open' });
      expect(forgejo.issues).toHaveLength(1);
    });

    it('returns INVALID_PARAMS without a title its schema declares, sending nothing', async () => {
      const tool = forgejoTool('create_issue', { params_schema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } } });
      expect(await execute(tool, { body: 'x' }, { forgejo: config })).toMatchObject({ ok: false, code: 'INVALID_PARAMS' });
      expect(forgejo.issues).toHaveLength(1);
    });
  });

  // review userY, Y1: the call failed INVALID_PARAMS ("parameter 'path' is required"), as if the caller had left it out
  describe("when the tool's params_schema cannot give the method a parameter it needs", () => {
    it('returns EXECUTOR_MISCONFIGURED naming the parameter and the definition', async () => {
      const tool = forgejoTool('read_file', { params_schema: { type: 'object', properties: { ref: { type: 'string' } } } });
      const result = await execute(tool, {}, { forgejo: config });
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED' });
      expect(result.error).toBe("tool 'forgejo-read_file' cannot run git-forgejo method 'read_file': it needs parameter 'path', which the tool's params_schema does not declare, so no caller is asked for it; declare it as text in tools/test-tool/TOOL.hdlp: in the shorthand, path: { type: string, required: true }; in a full JSON Schema, add 'path' to properties as {type: string} and to required (hldp validate reports it as METHOD_PARAMS_MISMATCH)");
    });

    it('sends nothing', async () => {
      const tool = forgejoTool('create_issue', { params_schema: { type: 'object', properties: { body: { type: 'string' } } } });
      expect(await execute(tool, { body: 'x' }, { forgejo: config })).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining("parameter 'title'") });
      expect(forgejo.issues).toHaveLength(1);
    });

    it('returns EXECUTOR_MISCONFIGURED when the schema declares it as something other than text', async () => {
      const tool = forgejoTool('create_issue', { params_schema: { type: 'object', properties: { title: { type: 'integer' } } } });
      expect(await execute(tool, { title: 7 }, { forgejo: config })).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining("declares it as integer") });
    });
  });

  describe('when the configuration does not allow the call', () => {
    it('returns HTTP_ERROR with the 401 for a wrong token, and never the token', async () => {
      const result = await run('read_file', { path: 'README.md' }, { forgejo: { ...config, token: 'wrong-token-value' } });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR', error: expect.stringContaining('HTTP 401') });
      expect(JSON.stringify(result)).not.toContain('wrong-token-value');
    });

    it('returns EXECUTOR_MISCONFIGURED naming the config keys when Forgejo is not configured', async () => {
      expect(await run('read_file', { path: 'README.md' }, {})).toMatchObject({ code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining('forgejo.url and forgejo.token') });
    });

    it('returns EXECUTOR_MISCONFIGURED listing the methods for an unknown one', async () => {
      expect(await run('delete_repo', {})).toMatchObject({ code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining('read_file, list_commits, list_tree, write_file, create_issue') });
    });

    it('returns a 404 when the definition’s repository overrides the configured one with another', async () => {
      const tool = forgejoTool('read_file', { forgejo: { repo: 'someone/else' } });
      const result = await execute(tool, { path: 'README.md' }, { forgejo: config });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR', error: expect.stringContaining('/repos/someone/else/') });
    });
  });
});

describe("git-forgejo executor: the URL a failed call's receipt names (errors17)", () => {
  // every query value was [REDACTED]: a receipt said `?ref=[REDACTED]`, never which ref or page failed
  it('keeps the ref of a failed read_file readable', async () => {
    const result = await run('read_file', { path: 'nope.md', ref: 'main' });
    expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR' });
    expect(result.error).toContain('/repos/zhuyuan/native-repo/contents/nope.md?ref=main answered HTTP 404');
  });

  it('keeps the ref, page and limit of a failed list_commits readable', async () => {
    const result = await run('list_commits', { ref: 'no-such-branch', limit: 5 });
    expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR' });
    expect(result.error).toContain('/commits?sha=no-such-branch&page=1&limit=5&stat=false&files=false&verification=false answered HTTP 404');
  });

  it('never shows the token, as written or URL-encoded, where an agent put it in the query', async () => {
    // a token with characters a query encodes: the receipt's own redaction looks for it as written only
    const token = 'wrong token/with+chars&ref=x';
    const result = await run('read_file', { path: 'README.md', ref: token }, { forgejo: { ...config, token } });
    expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR' });
    expect(result.error).toContain('/contents/README.md?ref=[REDACTED] answered HTTP 401');
    const text = JSON.stringify(result);
    for (const form of [token, encodeURIComponent(token), new URLSearchParams({ ref: token }).toString().slice(4)]) expect(text).not.toContain(form);
  });
});

describe('git-forgejo executor against a local server answering the API with a large error', () => {
  it('keeps the error within max_output_bytes, its head and tail and the cut marked, as output is kept', async () => {
    // a Forgejo (or a proxy before it) answering 500 with megabytes: the whole body went into the receipt's error
    const body = `{"message":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const server = createServer((request, response) => {
      request.resume();
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const tool = forgejoTool('read_file', { constraints: { timeout_ms: 10_000, max_output_bytes: 4096, require_confirm: false } });
      const result = await execute(tool, { path: 'README.md' }, { forgejo: { ...config, url } });
      expect(result).toMatchObject({ ok: false, code: 'HTTP_ERROR' });
      expect(Buffer.byteLength(result.error!)).toBeLessThanOrEqual(4096);
      expect(result.error).toMatch(/^GET .* answered HTTP 500: \{"message":"x+/);
      expect(result.error).toMatch(/\[… \d+ bytes cut of \d+ …\]/);
      expect(result.error!.endsWith('x"}')).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
