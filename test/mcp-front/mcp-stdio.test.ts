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
function runWithInput(messages: unknown[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HLDP_BIN, 'mcp'], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
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
});
