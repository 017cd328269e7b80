// The MCP servers behind the registry: stdio processes (through the sandbox) and Streamable HTTP endpoints, one connection each, started lazily, restarted on a crash, stopped when idle.
export { McpServerPool } from './server-pool.js';
export { DEFAULT_IDLE_MS, DEFAULT_SERVER_CPU_SECONDS, DEFAULT_STARTUP_TIMEOUT_MS, type HttpServerConfig, type McpServerConfig, type StdioServerConfig } from './server-config.js';
export type { ConnectionDefaults, ServerStatus } from './server-connection.js';
