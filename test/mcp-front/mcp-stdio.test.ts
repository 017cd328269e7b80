import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN, track } from '../helpers/run-cli.js';
import { callTool, connectStdio, firstText, nextToolListChange, runWithInput } from './support.js';

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

/** A running `hldp mcp` in a fresh folder, initialized; `send` writes one message to its stdin. */
async function startInitialized() {
  const path = await tempDir();
  const env = { ...process.env, HLDP_CACHE_DIR: join(path, 'cache'), HLDP_DATA_DIR: join(path, 'data'), HLDP_WORKSPACE: path };
  const child = track(spawn(process.execPath, [HLDP_BIN, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { path, env, child, stderr: () => stderr, exited, send };
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

  // Review R, R7: a line that is not JSON was dropped without a word — nothing on stdout, nothing on stderr — so a
  // client author debugging a framing bug saw only silence
  describe('when the client writes a line that is not JSON, or not a JSON-RPC message', () => {
    it('answers each with a JSON-RPC error of id null (-32700, -32600), says so on stderr, and goes on serving', async () => {
      const path = await tempDir();
      const env = { ...process.env, HLDP_CACHE_DIR: join(path, 'cache'), HLDP_DATA_DIR: join(path, 'data'), HLDP_WORKSPACE: path };
      const child = track(spawn(process.execPath, [HLDP_BIN, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
      child.stdin.end(`{bad json\n{"hello":"world"}\n${JSON.stringify(initialize)}\n`);
      const [code] = await exited;
      expect(code).toBe(0);
      const messages = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id: unknown; error?: { code: number; message: string }; result?: unknown });
      expect(messages).toHaveLength(3);
      expect(messages[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: a line that is not JSON was dropped \(/) } });
      expect(messages[1]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a line that is not a JSON-RPC 2.0 message was dropped' } });
      expect(messages[2]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: expect.any(Object) } });
      expect(stderr).toContain('Parse error: a line that is not JSON was dropped');
      expect(stderr).toContain('Invalid Request: a line that is not a JSON-RPC 2.0 message was dropped');
    });
  });

  // Review N, N10: a second SIGTERM (a client's stop, or Ctrl-C twice) ended hldp mcp at once, and the calls it was
  // running left no receipt; a client that went away (its end of stdout closed) ended it with an unhandled EPIPE at
  // the first answer written, leaving no receipt for the calls still running.
  describe('when two SIGTERMs come while a call runs', () => {
    it('cancels it, stores its CANCELLED receipt saying the gateway was stopped, then exits', { timeout: 120_000 }, async () => {
      const { path, env, child, stderr, exited, send } = await startInitialized();
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell-exec', arguments: { cmd: 'echo started > started.txt; sleep 60' } } });
      await expect.poll(() => readFile(join(path, 'started.txt'), 'utf8').catch(() => ''), { timeout: 60_000, interval: 50 }).toBe('started\n');
      child.kill('SIGTERM');
      // the second comes once the first is handled (two signals sent at once may arrive as one)
      await expect.poll(() => stderr(), { timeout: 30_000, interval: 50 }).toMatch(/hldp mcp: SIGTERM: cancelling 1 call\(s\) in flight, storing their receipts/);
      child.kill('SIGTERM');
      await exited;
      const stored = JSON.parse(execFileSync(process.execPath, [HLDP_BIN, 'receipts', '--json'], { env }).toString()) as { receipts: Array<{ tool: string; code: string; error: string }> };
      expect(stored.receipts).toHaveLength(1);
      expect(stored.receipts[0]).toMatchObject({ tool: 'shell-exec', code: 'CANCELLED' });
      expect(stored.receipts[0]!.error).toMatch(/cancelled: the gateway was stopped before the call ended/);
      expect(stderr()).toMatch(/hldp mcp: SIGTERM: cancelling 1 call\(s\) in flight, storing their receipts/);
    });
  });

  // Review userU, F10: a request the client cancelled (notifications/cancelled) is never answered, as the protocol
  // says, but hldp mcp counted it open for good: it then outlived its client's stdin, and a SIGTERM too (a gateway
  // left under pid 1 by each client that pressed stop once).
  describe('when the client cancels a call, then ends', () => {
    it.each([['closes stdin'], ['sends SIGTERM']])('exits 0 once it %s, the call cancelled with its receipt', { timeout: 120_000 }, async (how) => {
      const { path, env, child, stderr, exited, send } = await startInitialized();
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell-exec', arguments: { cmd: 'echo started > started.txt; sleep 600' } } });
      await expect.poll(() => readFile(join(path, 'started.txt'), 'utf8').catch(() => ''), { timeout: 60_000, interval: 50 }).toBe('started\n');
      send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'the user pressed stop' } });
      // the cancelled call's receipt is stored before the client ends, so the end has nothing left to wait for
      await expect.poll(() => JSON.parse(execFileSync(process.execPath, [HLDP_BIN, 'receipts', '--json'], { env }).toString()).receipts.length, { timeout: 60_000, interval: 200 }).toBe(1);
      if (how === 'closes stdin') child.stdin.end();
      else child.kill('SIGTERM');
      const [code] = await exited;
      expect(code, stderr()).toBe(0);
      const stored = JSON.parse(execFileSync(process.execPath, [HLDP_BIN, 'receipts', '--json'], { env }).toString()) as { receipts: Array<{ tool: string; code: string }> };
      expect(stored.receipts).toEqual([expect.objectContaining({ tool: 'shell-exec', code: 'CANCELLED' })]);
    });
  });

  describe('when the client goes away (closes both pipes) while two calls run', () => {
    it('does not die at the first answer it cannot write: both calls leave a receipt, and it exits 0', { timeout: 120_000 }, async () => {
      const { path, env, child, stderr, exited, send } = await startInitialized();
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell-exec', arguments: { cmd: 'echo a > a.txt; sleep 1; echo short' } } });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'shell-exec', arguments: { cmd: 'echo b > b.txt; sleep 30; echo long' } } });
      for (const file of ['a.txt', 'b.txt']) await expect.poll(() => readFile(join(path, file), 'utf8').catch(() => ''), { timeout: 60_000, interval: 50 }).toMatch(/^[ab]\n$/);
      // the client exits: both pipes closed, so the first answer written meets EPIPE
      child.stdout.destroy();
      child.stdin.end();
      const [code] = await exited;
      expect(code, stderr()).toBe(0);
      expect(stderr()).not.toContain('EPIPE');
      const stored = JSON.parse(execFileSync(process.execPath, [HLDP_BIN, 'receipts', '--json'], { env }).toString()) as { receipts: Array<{ ok: boolean; output: string; code: string | null }> };
      // the short call ran to its end; the long one was cancelled once no one was left to read its answer
      expect(stored.receipts).toHaveLength(2);
      expect(stored.receipts).toContainEqual(expect.objectContaining({ ok: true, output: 'short\n' }));
      expect(stored.receipts).toContainEqual(expect.objectContaining({ ok: false, code: 'CANCELLED' }));
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
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait', 'first']);
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
