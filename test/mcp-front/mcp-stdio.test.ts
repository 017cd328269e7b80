import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN } from '../helpers/run-cli.js';
import { callTool, connectStdio, firstText, nextToolListChange } from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function tempDir(): Promise<string> {
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  return temp.path;
}

const shellTool = (name: string, argv: string) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${argv} }` });

/** Runs `hldp mcp`, writes the messages, ends stdin, and collects stdout until the process exits. */
function runWithInput(messages: unknown[], env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HLDP_BIN, 'mcp', ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  });
}

describe('hldp mcp (stdio)', () => {
  describe('when stdin ends while a call is still running', () => {
    it('answers it before exiting 0, and stdout holds nothing but JSON-RPC messages', async () => {
      const path = await tempDir();
      const env = { HLDP_CACHE_DIR: join(path, 'cache'), HLDP_DATA_DIR: join(path, 'data'), HLDP_WORKSPACE: path };
      const run = await runWithInput(
        [
          { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell-exec', arguments: { cmd: 'sleep 0.2; echo late' } } },
        ],
        env,
      );
      expect(run.code).toBe(0);
      const messages = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: { content: Array<{ text: string }> } });
      expect(messages.every((message) => message.jsonrpc === '2.0')).toBe(true);
      expect(messages.find((message) => message.id === 2)?.result?.content[0]?.text).toBe('late\n');
      expect(run.stderr).toContain('MCP server on stdio');
    });
  });

  describe('when the repository gets a new tool while a client is connected', () => {
    it('finds it on its next poll and sends notifications/tools/list_changed', async () => {
      const path = await tempDir();
      const repo = await initRepository(join(path, 'repo'));
      await commitFiles(repo, { 'tools/first/TOOL.hdlp': shellTool('first', '[echo, first]') });
      const config = join(path, 'hldp.yaml');
      await writeFile(config, 'repository:\n  poll_interval_ms: 50\n');
      const connected = await connectStdio(repo, ['--config', config]);
      cleanups.push(connected.close);
      const { client } = connected;
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'first']);
      const changed = nextToolListChange(client);
      await commitFiles(repo, { 'tools/second/TOOL.hdlp': shellTool('second', '[echo, second]') });
      await changed;
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('second');
      expect(firstText(await callTool(client, 'second'))).toBe('second\n');
    });
  });

  // Review K, S7: without HLDP_TOKEN hldp mcp acted as 'local', every role, even where principals were configured: an
  // agent framework that forgot the variable ran its agent as admin, past its access rules and base list.
  describe('when principals are configured', () => {
    const BOT_TOKEN = 'ci-bot-token-0123456789abcdef';
    const SHELL_CALL = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell-exec', arguments: { cmd: 'echo ran' } } },
    ];
    async function principalsEnv(): Promise<NodeJS.ProcessEnv> {
      const path = await tempDir();
      const config = join(path, 'brush-holder.yaml');
      await writeFile(config, 'principals:\n  ci-bot: { roles: [agent], tools: [git-ops] }\n');
      return { HLDP_CACHE_DIR: join(path, 'cache'), HLDP_DATA_DIR: join(path, 'data'), HLDP_WORKSPACE: path, HLDP_CONFIG: config, HLDP_PRINCIPAL_CI_BOT_TOKEN: BOT_TOKEN, HLDP_TOKEN: '' };
    }
    const answerTo = (stdout: string, id: number) =>
      stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id?: number; result?: { isError?: boolean; content: Array<{ text: string }> } }).find((message) => message.id === id)?.result;

    it('refuses to start without HLDP_TOKEN (exit 2), saying what to set, and serves nothing', async () => {
      const run = await runWithInput(SHELL_CALL, await principalsEnv());
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^hldp mcp: principals are configured \(ci-bot\), and without HLDP_TOKEN hldp mcp would act as 'local', the operator at this machine, with every role\. Set HLDP_TOKEN .* or pass --as-local if the operator is meant\n$/);
    });

    it('acts for the principal of HLDP_TOKEN: shell-exec is not its to call', async () => {
      const run = await runWithInput(SHELL_CALL, { ...(await principalsEnv()), HLDP_TOKEN: BOT_TOKEN });
      expect(run.code).toBe(0);
      expect(answerTo(run.stdout, 2)).toMatchObject({ isError: true });
      expect(answerTo(run.stdout, 2)?.content[0]?.text).not.toBe('ran\n');
    }, 120_000);

    it('acts as local with --as-local, as the operator asked', async () => {
      const run = await runWithInput(SHELL_CALL, await principalsEnv(), ['--as-local']);
      expect(run.code).toBe(0);
      expect(answerTo(run.stdout, 2)?.content[0]?.text).toBe('ran\n');
    }, 120_000);

    it('refuses --as-local beside HLDP_TOKEN (exit 2)', async () => {
      const run = await runWithInput(SHELL_CALL, { ...(await principalsEnv()), HLDP_TOKEN: BOT_TOKEN }, ['--as-local']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--as-local and HLDP_TOKEN both say whom hldp mcp acts for; keep one/);
    });
  });
});
