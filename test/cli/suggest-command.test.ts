import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeTempDir } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { HLDP_BIN, runCli } from '../helpers/run-cli.js';
import { callTool, makeClient } from '../mcp-front/support.js';

let temp: { path: string; cleanup: () => Promise<void> };
let env: Record<string, string>;

beforeEach(async () => {
  temp = await makeTempDir();
  await mkdir(join(temp.path, 'workspace'));
  // a git repository, so that git-ops status succeeds: only a call that ran successfully is counted (review Z6, Z6-5)
  await git(join(temp.path, 'workspace'), 'init', '-q');
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace') };
});
afterEach(() => temp.cleanup());

/** One agent session over the real `hldp mcp` on stdio: the steps run, then the server exits. */
async function session(steps: (call: (name: string, args: Record<string, unknown>) => Promise<unknown>) => Promise<void>): Promise<void> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [HLDP_BIN, 'mcp'], env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
  const client = makeClient();
  await client.connect(transport);
  try {
    await steps((name, args) => callTool(client, name, args));
  } finally {
    await client.close();
  }
}

describe('hldp suggest examples', () => {
  describe('when an agent found nothing for a request, then called a tool', () => {
    it('proposes the request as an example of that tool, and writes nothing', async () => {
      await session(async (call) => {
        expect(await call('tool_find', { intent: 'who wrote this' })).toMatchObject({ structuredContent: { found: false } });
        await call('git-ops', { op: 'status' });
      });
      const run = await runCli(['suggest', 'examples', '--json'], { env });
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.suggestions).toEqual([
        expect.objectContaining({
          tool: 'git-ops',
          path: 'tools/git-ops/TOOL.hdlp',
          examples: [expect.objectContaining({ text: 'who wrote this', count: 1, sessions: 1, principals: 1, by: ['local'], answered: ['found: false'] })],
        }),
      ]);
      const text = await runCli(['suggest', 'examples'], { env });
      expect(text.stdout).toBe('tools/git-ops/TOOL.hdlp\n  examples:\n    - "who wrote this"    # 1× in 1 session(s) by 1 principal(s) (local); was found: false\n');
      expect(text.stderr).toMatch(/the gateway never writes tools/);
    });
  });

  describe('when an agent sends tool_find an intent past 4,000 characters (the limit of POST /v1/match and /v1/call)', () => {
    it('refuses it as invalid params, and stores nothing of it (review J: a 1 MB intent was kept whole in usage_events)', async () => {
      await session(async (call) => {
        const answer = (await call('tool_find', { intent: `who wrote this ${'x'.repeat(4000)}` })) as { isError?: boolean; content: Array<{ text: string }> };
        expect(answer.isError).toBe(true);
        expect(answer.content[0]!.text).toMatch(/INVALID_PARAMS|invalid params for 'tool_find'/);
        await call('git-ops', { op: 'status' });
      });
      const run = await runCli(['suggest', 'examples', '--json'], { env });
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain('x'.repeat(100));
    });
  });

  describe('when nothing was stored after --since', () => {
    it('says so and exits 0', async () => {
      const run = await runCli(['suggest', 'examples', '--since', '2999-01-01'], { env });
      expect(run).toMatchObject({ code: 0, stdout: '' });
      // nothing was ever stored here: the store that does not exist is said first, and not created (review userZ4, F7)
      expect(run.stderr).toMatch(/^no store at \S+receipts\.db: .*\nno request matched weakly .* since 2999-01-01\n$/);
    });
  });

  describe('when the arguments are wrong', () => {
    it.each([
      [['suggest'], /the one kind is 'examples'/],
      [['suggest', 'aliases'], /^hldp suggest: unknown kind 'aliases'; the one kind is 'examples'/],
      // review userZ3, LOW 9: a misspelt kind is answered with the one meant, as a misspelt command is
      [['suggest', 'exampels'], /^hldp suggest: unknown kind 'exampels'; did you mean 'examples'\? hldp suggest examples \[--since ISO\]\n$/],
      [['suggest', 'example'], /^hldp suggest: unknown kind 'example'; did you mean 'examples'\?/],
      [['suggest', 'examples', '--since', 'last week'], /--since must be an ISO date/],
      [['suggest', 'examples', '--window', '0'], /--window must be a number of minutes/],
    ])('exits 2 for %j', async (args, message) => {
      const run = await runCli(args, { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    });
  });
});

describeWithPostgres('hldp suggest examples on PostgreSQL (HLDP_STORE_URL)', () => {
  // a regression: it read the SQLite file even when the gateways record into PostgreSQL, and so proposed nothing
  it('reads the pairs the gateways stored in the shared store', async () => {
    const database = await createTestDatabase();
    try {
      env.HLDP_STORE_URL = database.url;
      await session(async (call) => {
        expect(await call('tool_find', { intent: 'who wrote this' })).toMatchObject({ structuredContent: { found: false } });
        await call('git-ops', { op: 'status' });
      });
      const run = await runCli(['suggest', 'examples', '--json'], { env });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).suggestions).toEqual([
        expect.objectContaining({ tool: 'git-ops', examples: [expect.objectContaining({ text: 'who wrote this', count: 1, sessions: 1 })] }),
      ]);
      const { HLDP_STORE_URL: _shared, ...sqliteOnly } = env;
      expect(JSON.parse((await runCli(['suggest', 'examples', '--json'], { env: sqliteOnly })).stdout)).toMatchObject({ events: 0, suggestions: [] });
    } finally {
      await database.drop();
    }
  });
});
