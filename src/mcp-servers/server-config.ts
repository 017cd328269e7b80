import type { DeclaredSandbox } from '../core/index.js';

/** A server the gateway starts and talks to over its stdin and stdout. */
export interface StdioServerConfig {
  transport: 'stdio';
  command: string;
  args: string[];
  /** the server's environment beyond the minimal one (PATH, HOME, LANG, …); values already expanded from the gateway's */
  env: Record<string, string>;
  /** absolute working directory (default: the workspace root) */
  cwd?: string;
  /** what the server may see and use inside the sandbox, as a tool's `sandbox:` block declares it */
  sandbox?: DeclaredSandbox;
}

/** A server reached over Streamable HTTP. */
export interface HttpServerConfig {
  transport: 'http';
  url: string;
  /** sent as `Authorization: Bearer <token>` */
  token?: string;
  headers: Record<string, string>;
}

/** One entry of `mcp_servers`, with what both kinds share. */
export type McpServerConfig = (StdioServerConfig | HttpServerConfig) & {
  /** values no receipt may show: the token, header values, environment values taken from the gateway's environment */
  secrets: string[];
  /** an unused connection is closed (a stdio server stopped) after this long; 0 keeps it */
  idleMs: number;
  /** the longest a start and handshake may take, whatever the call's own deadline */
  startupTimeoutMs: number;
};

/** Idle time before an unused server is stopped: five minutes (seed 003). */
export const DEFAULT_IDLE_MS = 5 * 60_000;

/**
 * CPU seconds of a stdio server's process when its config sets none: a server lives across many calls, so a tool's
 * one-minute limit would end a busy one; an hour still stops a runaway.
 */
export const DEFAULT_SERVER_CPU_SECONDS = 3600;

/** The longest a server's start and `initialize` handshake may take. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
