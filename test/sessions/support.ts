import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { startServer, type RunningServer } from '../../src/gateway/http/index.js';
import { mountMcp } from '../../src/mcp-front/index.js';
import type { SessionsConfig } from '../../src/sessions/index.js';
import { makeTestConfig } from '../helpers/gateway.js';

/** A clock a test moves by hand. */
export interface ManualClock {
  (): number;
  advance(ms: number): void;
}

/** Starts at a fixed time; only `advance` moves it. */
export function manualClock(start = Date.parse('2026-12-01T00:00:00Z')): ManualClock {
  let now = start;
  const clock = (() => now) as ManualClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

/** A real `hldp serve` server (HTTP API, /mcp, embedded gatekeeper) on 127.0.0.1 port 0 over `repo`, with an injected clock. */
export async function startSessionServer(repo: string, options: { clock?: ManualClock; sessions?: Partial<SessionsConfig> } = {}): Promise<{ server: RunningServer; clock: ManualClock; close(): Promise<void> }> {
  const { config, cleanup } = await makeTestConfig(repo, { HLDP_PORT: '0', HLDP_POLL_INTERVAL_MS: '600000' });
  Object.assign(config.sessions, options.sessions ?? {});
  const clock = options.clock ?? manualClock();
  const server = await startServer(config, { logger: pino({ level: 'silent' }), version: 'test', clock, mountMcp });
  return {
    server,
    clock,
    close: async () => {
      await server.close();
      await cleanup();
    },
  };
}

/** The official MCP SDK client, connected to `url` (e.g. `…/mcp?toolsets=repo`); `changes` counts `list_changed` notifications. */
export async function connectClient(url: string): Promise<{ client: Client; changes: { count: number; next(): Promise<void> }; close(): Promise<void> }> {
  const client = new Client({ name: 'sessions-test', version: '0.0.0' });
  let waiters: Array<() => void> = [];
  const changes = {
    count: 0,
    next: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes.count += 1;
    for (const wake of waiters.splice(0)) wake();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, changes, close: () => client.close() };
}

/** Names of the listed tools. */
export async function listedNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

/** Calls a tool with the SDK client. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of every content block, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** The meta-tools every session lists first. */
export const META = ['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait'];

/** A JSON request to the server's API. */
export async function api(base: string, method: string, path: string, options: { session?: string; body?: unknown } = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.session ? { 'X-HLDP-Session': options.session } : {}) },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}
