// The MCP server: the registry's tools over stdio and Streamable HTTP, calls through the gateway's one call path; importing it loads no MCP SDK (hldp serve mounts /mcp from here).
export { serveMcpStdio, type StdioStreams } from './serve-stdio.js';
export { createMcpHttpHandler, mountMcp, type McpHttpHandler, type McpHttpOptions } from './mcp-http.js';
export { outcomeResult, receiptResult, matchResult, STREAM_META } from './call-result.js';
export { TIMEOUT_META } from './call-meta.js';
