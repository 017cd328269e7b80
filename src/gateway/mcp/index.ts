// The MCP server: the registry's tools over stdio and Streamable HTTP, calls through the gateway's one call path.
export { createMcpServer } from './create-mcp-server.js';
export { serveMcpStdio, type StdioStreams } from './serve-stdio.js';
export { createMcpHttpHandler, mountMcp, type McpHttpHandler, type McpHttpOptions } from './mcp-http.js';
export { catalogFor, type CallTarget, type ToolCatalog } from './tool-catalog.js';
export { outcomeResult, receiptResult, matchResult, STREAM_META } from './call-result.js';
export { TIMEOUT_META } from './call-meta.js';
