import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PACKAGE_ROOT } from '../config/index.js';
import { CONFIRM_TOOL, FIND_TOOL } from '../../export/index.js';
import type { Gateway } from '../service/index.js';
import { failure, matchResult, outcomeResult } from './call-result.js';
import { checkConfirmArguments, checkFindArguments } from './meta-arguments.js';
import { catalogFor } from './tool-catalog.js';

const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const INSTRUCTIONS =
  `Tools from a git registry (brush-holder). Call a tool by its name; if you do not know which one fits, call ${FIND_TOOL.name} with your intent. ` +
  `Results are the tools' raw output; a failure comes back as an error with the raw stderr. ` +
  `A tool that needs confirmation answers with a token and runs nothing: call ${CONFIRM_TOOL.name} with that token to run it.`;

/**
 * An MCP server over `gateway`: lists the registry's tools (plus `tool_find` and `confirm`), runs calls through
 * `gateway.call`, and sends `notifications/tools/list_changed` when a rescan changes the listed tools.
 * One server per connection (the SDK binds a server to one transport); `close()` it to stop listening to the gateway.
 */
export function createMcpServer(gateway: Gateway): Server {
  // the low-level Server, not McpServer: the tools are JSON Schemas read from TOOL.hdlp that change on rescan,
  // and the gateway, not zod, validates params (with the same wording and receipts as POST /v1/call)
  const server = new Server({ name: 'brush-holder', title: 'brush-holder 笔筒', version: VERSION }, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS });
  let listed = catalogFor(gateway.registry.index).digest;
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const catalog = catalogFor(gateway.registry.index);
    listed = catalog.digest;
    return { tools: catalog.tools };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(gateway, request.params.name, request.params.arguments ?? {}, extra.signal));

  let initialized = false;
  server.oninitialized = () => {
    initialized = true;
  };
  const unsubscribe = gateway.onIndexChange((registry) => {
    const { digest } = catalogFor(registry.index);
    // a commit that changes no listed tool (a README, a comment) is not a list change
    if (!initialized || digest === listed) return;
    listed = digest;
    server.sendToolListChanged().catch(() => undefined);
  });
  server.onclose = unsubscribe;
  return server;
}

/** One `tools/call`: a meta-tool, or a registry tool through exactly the path `POST /v1/call` takes. */
async function callTool(gateway: Gateway, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  const catalog = catalogFor(gateway.registry.index);
  const target = catalog.resolve(name);
  try {
    switch (target.kind) {
      case 'find': {
        const checked = checkFindArguments(args);
        if (!checked.ok) return failure(checked.error);
        return matchResult(gateway.match(checked.value.intent, checked.value.limit === undefined ? {} : { limit: checked.value.limit }), catalog);
      }
      case 'confirm': {
        const checked = checkConfirmArguments(args);
        if (!checked.ok) return failure(checked.error);
        return outcomeResult(await gateway.confirm(checked.value.token, { signal }), catalog);
      }
      case 'tool':
        return outcomeResult(await gateway.call(target.name, args, { signal }), catalog);
    }
  } catch (error) {
    // a bug in the gateway still reaches the agent as a failed call, never as a protocol error
    return failure(`INTERNAL_ERROR: ${error instanceof Error ? error.message : String(error)}`, { code: 'INTERNAL_ERROR' });
  }
}
