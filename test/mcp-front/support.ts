import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import { mountMcp, type McpHttpHandler } from '../../src/mcp-front/index.js';
import type { Gateway } from '../../src/gateway/service/index.js';
import { openTestGateway } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/git.js';
import { HLDP_BIN } from '../helpers/run-cli.js';

/** An MCP client connected to a brush-holder MCP server, and where that server keeps its workspace. */
export interface Connected {
  client: Client;
  workspace: string;
  close(): Promise<void>;
}

/** A connection over Streamable HTTP, with the in-process gateway and HTTP endpoint behind it. */
export interface HttpConnected extends Connected {
  gateway: Gateway;
  handler: McpHttpHandler;
  url: string;
  /** resolves once the client's GET notification stream is open (notifications sent before it are lost) */
  notificationStream: Promise<void>;
}

/** A fresh client. */
export function makeClient(): Client {
  return new Client({ name: 'brush-holder-test', version: '0.0.0' });
}

/** Serves `repo` at `/mcp` of an express app on 127.0.0.1 port 0, over a real Gateway, and connects a client. */
export async function connectHttp(repo: string, env: NodeJS.ProcessEnv = {}): Promise<HttpConnected> {
  const opened = await openTestGateway(repo, env);
  const app = express();
  let streamOpened!: () => void;
  const notificationStream = new Promise<void>((resolve) => (streamOpened = resolve));
  // the GET stream is registered before its headers are written: writing them is the event to wait for
  app.use('/mcp', (request, response, next) => {
    if (request.method === 'GET') {
      const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => typeof response;
      response.writeHead = ((...args: unknown[]) => {
        const result = writeHead(...args);
        streamOpened();
        return result;
      }) as typeof response.writeHead;
    }
    next();
  });
  const handler = mountMcp(app, opened.gateway);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const client = makeClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    gateway: opened.gateway,
    handler,
    url,
    notificationStream,
    workspace: opened.workspace,
    close: async () => {
      await client.close();
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await opened.cleanup();
    },
  };
}

/** Spawns the real `node bin/hldp.js mcp` over `repo` (state in a temporary folder) and connects a client on its stdio. */
export async function connectStdio(repo: string, extraArgs: string[] = []): Promise<Connected & { stderr: () => string }> {
  const temp = await makeTempDir('hldp-mcp-');
  const workspace = join(temp.path, 'workspace');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(workspace, { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HLDP_BIN, 'mcp', '--repo', repo, ...extraArgs],
    env: {
      ...(process.env as Record<string, string>),
      HLDP_CACHE_DIR: join(temp.path, 'cache'),
      HLDP_DATA_DIR: join(temp.path, 'data'),
      HLDP_WORKSPACE: workspace,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = makeClient();
  await client.connect(transport);
  return {
    client,
    workspace,
    stderr: () => stderr,
    close: async () => {
      await client.close();
      await temp.cleanup();
    },
  };
}

/** Resolves on the client's next `notifications/tools/list_changed`. */
export function nextToolListChange(client: Client): Promise<void> {
  return new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
}

/** Calls a tool; the result as the SDK parsed it. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first content block. */
export function firstText(result: CallToolResult): string {
  const [block] = result.content;
  if (block?.type !== 'text') throw new Error(`expected a text block, got ${JSON.stringify(result.content)}`);
  return block.text;
}

/** Runs `hldp mcp`, writes the messages, ends stdin, and collects stdout until the process exits. */
export function runWithInput(messages: unknown[], env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
