import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '../core/index.js';
import type { McpCallOptions, McpCallOutcome, McpServers } from '../executors/index.js';
import type { McpServerConfig } from './server-config.js';
import { ServerConnection, type ConnectionDefaults, type ServerStatus } from './server-connection.js';

/** The MCP servers of one gateway: one connection each, made on first use. */
export class McpServerPool implements McpServers {
  readonly #connections = new Map<string, ServerConnection>();

  constructor(servers: Record<string, McpServerConfig>, defaults: ConnectionDefaults) {
    for (const [name, config] of Object.entries(servers)) this.#connections.set(name, new ServerConnection(name, config, defaults));
  }

  /** The configured server names. */
  get names(): string[] {
    return [...this.#connections.keys()];
  }

  callTool(server: string, tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallOutcome> {
    const connection = this.#connections.get(server);
    if (!connection) return Promise.resolve({ ok: false, code: 'EXECUTOR_MISCONFIGURED', message: this.#unknown(server) });
    return connection.callTool(tool, args, options);
  }

  /** Why `server` is none of the configured ones, or undefined when it is one (checked before a call is put to a person). */
  unknownServer(server: string): string | undefined {
    return this.#connections.has(server) ? undefined : this.#unknown(server);
  }

  /** Every tool `server` lists, for drafting definitions (`hldp import mcp`). */
  listTools(server: string, signal: AbortSignal): Promise<{ ok: true; tools: Tool[] } | { ok: false; code: ErrorCode; message: string }> {
    const connection = this.#connections.get(server);
    if (!connection) return Promise.resolve({ ok: false, code: 'EXECUTOR_MISCONFIGURED', message: this.#unknown(server) });
    return connection.listTools(signal);
  }

  /** Each server's state, by name. */
  status(): ServerStatus[] {
    return [...this.#connections.values()].map((connection) => connection.status());
  }

  /** Stops every server and ends every session. */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.stop()));
  }

  #unknown(server: string): string {
    const known = this.names;
    return `no MCP server named '${server}' is configured; add mcp_servers.${server} ({command, args} or {url}) to the gateway config` + (known.length ? ` (configured: ${known.join(', ')})` : '');
  }
}
