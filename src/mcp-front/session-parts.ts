// What a `/mcp` session is made of at run time (the SDK's server, its Streamable HTTP transport, zod under both); loaded by mcp-http.ts on the first request.
export { createMcpServer, goneToolsets } from './create-mcp-server.js';
export { SessionTransport } from './session-transport.js';
