// What a connection uses of the MCP client SDK at run time; loaded through client-kit.ts only.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { boundedFetch } from './bounded-fetch.js';
export { ErrorCode as RpcErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
export { AnswerLost, OrderedTransport } from './ordered-transport.js';
export { LaunchedStdioTransport } from './stdio-transport.js';
