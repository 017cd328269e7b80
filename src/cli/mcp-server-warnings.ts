import { configuredTargets, type GatewayConfig } from '../config/index.js';
import { knownMcpServers, type ToolIndex } from '../core/index.js';
import { nearest } from '../scanner/index.js';

// tool names said for one server; the line then says how many more
const NAMED = 20;

/**
 * One warning for each MCP server that tools of `index` run on and `config` does not configure, naming those tools
 * and the setting to add: a draft imported on another machine, or a server left out of this gateway's config, was
 * found and called by an agent that only then learnt it could not run (review userZ11, U11-23). Read from what the
 * index knows without making its tools (the scan cache keeps each mcp tool's server): none when it cannot say.
 */
export function unconfiguredMcpServerLines(index: Pick<ToolIndex, 'tools'>, config: GatewayConfig): string[] {
  const servers = knownMcpServers(index);
  if (!servers || servers.length === 0) return [];
  const configured = configuredTargets(config).mcp;
  const missing = new Map<string, string[]>();
  for (const { tool, server } of servers) {
    if (configured.includes(server)) continue;
    const tools = missing.get(server) ?? [];
    tools.push(tool);
    missing.set(server, tools);
  }
  return [...missing].map(([server, tools]) => {
    const near = nearest(server, configured);
    const named = tools.slice(0, NAMED).map((tool) => `'${tool}'`).join(', ') + (tools.length > NAMED ? ` and ${tools.length - NAMED} more` : '');
    return (
      `MCP server '${server}' is not configured (mcp_servers of the gateway's config: ${configured.length ? configured.join(', ') : 'none'}${near.length ? `; did you mean ${near.map((name) => `'${name}'`).join(', ')}?` : ''}): ` +
      `every call of ${tools.length === 1 ? 'its tool' : `its ${tools.length} tools`} ${named} fails (EXECUTOR_MISCONFIGURED) until mcp_servers.${server} is added to the config (--config FILE or HLDP_CONFIG) or the tool's mcp.server names a configured server`
    );
  });
}
