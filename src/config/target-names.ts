import type { Diagnostic, ToolDefinition } from '../core/index.js';
import { countedDocument, nearest, writtenDocument, type YamlLocator } from '../scanner/index.js';
import type { GatewayConfig } from './gateway-config.js';

/** The names a definition may give its executor's target under one config: gatekeepers, APIs, MCP servers. */
export interface ConfiguredTargets {
  gatekeeper: readonly string[];
  api: readonly string[];
  mcp: readonly string[];
}

/**
 * What `config` configures, names left out for a secret not in this shell included (they are configured where the
 * gateway runs). `default` is a gatekeeper while the embedded one is on, and always an API: `hldp serve` is its own.
 */
export function configuredTargets(config: GatewayConfig): ConfiguredTargets {
  const leftOut = (prefix: string): string[] => (config.secretsLeftOut ?? []).filter((part) => part.key.startsWith(prefix)).map((part) => part.key.slice(prefix.length).split('.')[0]!);
  const gatekeeper = new Set([...Object.keys(config.gatekeepers), ...leftOut('gatekeepers.'), ...(config.embeddedGatekeeper.enabled ? ['default'] : [])]);
  return {
    gatekeeper: [...gatekeeper],
    api: [...new Set([...Object.keys(config.apis), ...leftOut('apis.'), 'default'])],
    mcp: [...new Set([...Object.keys(config.mcpServers), ...leftOut('mcp_servers.')])],
  };
}

/** A tool's target field that names nothing `targets` holds: the field's path and what to say, or undefined. */
export function unknownTarget(tool: ToolDefinition, targets: ConfiguredTargets): { path: [string, string]; message: string } | undefined {
  const field = targetField(tool, targets);
  if (field === undefined) return undefined;
  const { path, name, known, what } = field;
  if (known.includes(name)) return undefined;
  const near = nearest(name, known);
  const section = path[0] === 'gatekeeper' ? 'gatekeepers' : path[0] === 'http' ? 'apis' : 'mcp_servers';
  return {
    path: [...path],
    message:
      `${path.join('.')} '${name}' names no ${what} of the gateway's config (configured: ${known.length ? known.join(', ') : 'none'})` +
      // one sentence ends before the next begins, with or without a near name (review userZ5, F8)
      `${near.length ? `; did you mean ${near.map((candidate) => `'${candidate}'`).join(', ')}?` : '.'}` +
      ` Every call of this tool fails (EXECUTOR_MISCONFIGURED) until the name is fixed in the definition or ${section}.${name} is added to the config`,
  };
}

// the field that names the tool's target, by its executor, and the names it may take
function targetField(tool: ToolDefinition, targets: ConfiguredTargets): { path: [string, string]; name: string; known: readonly string[]; what: string } | undefined {
  if (tool.executor === 'gatekeeper') return { path: ['gatekeeper', 'target'], name: tool.gatekeeper?.target ?? 'default', known: targets.gatekeeper, what: 'gatekeeper' };
  if (tool.executor === 'hldp-api') return { path: ['http', 'api'], name: tool.http?.api ?? 'default', known: targets.api, what: 'API' };
  if (tool.executor === 'mcp' && tool.mcp) return { path: ['mcp', 'server'], name: tool.mcp.server, known: targets.mcp, what: 'MCP server' };
  return undefined;
}

/**
 * `unknownTarget` of each tool of `files`, as a warning at the field (file:line:col). `broken` names definition files
 * refused for another error: their target is judged as written, so the author is told it in the same run as the rest,
 * not once the file has no other error (review userZ9, U9-4); a file whose YAML does not parse is left out.
 */
export function unknownTargetWarnings(tools: Iterable<ToolDefinition>, texts: ReadonlyMap<string, string>, targets: ConfiguredTargets, broken: Iterable<string> = []): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  const tell = (tool: Pick<ToolDefinition, 'executor' | 'gatekeeper' | 'http' | 'mcp'>, path: string, locator: () => Pick<YamlLocator, 'locate'>): void => {
    const problem = unknownTarget(tool as ToolDefinition, targets);
    if (!problem) return;
    const { line, column } = locator().locate(problem.path);
    warnings.push({ file: path, line, column, severity: 'warning', code: 'UNKNOWN_TARGET', message: problem.message });
  };
  for (const tool of tools) {
    const text = texts.get(tool.source.path);
    if (text === undefined) continue;
    tell(tool, tool.source.path, () => {
      // a served tool's text, which the scan let yaml build; one changed since is placed at its first line. The scan
      // checked its keys written twice its own linear way: yaml's check is quadratic in a mapping's keys (review Z20-7)
      const counted = countedDocument(text, { uniqueKeys: false });
      return 'refused' in counted ? { locate: () => ({ line: 1, column: 1 }) } : counted.locator;
    });
  }
  for (const path of broken) {
    const text = texts.get(path);
    const written = text === undefined ? undefined : writtenDocument(text);
    const target = written && writtenTarget(written.value);
    if (written && target) tell(target, path, () => written.locator);
  }
  return warnings;
}

// a refused definition's executor and the field naming its target, where each is a name (anything else is the file's own error)
function writtenTarget(value: Record<string, unknown>): Pick<ToolDefinition, 'executor' | 'gatekeeper' | 'http' | 'mcp'> | undefined {
  const { executor, gatekeeper, http, mcp } = value;
  const field = (block: unknown, key: string): string | undefined => {
    const named = typeof block === 'object' && block !== null ? (block as Record<string, unknown>)[key] : undefined;
    return typeof named === 'string' ? named : undefined;
  };
  if (executor === 'gatekeeper') return { executor, ...(field(gatekeeper, 'target') === undefined ? {} : { gatekeeper: { target: field(gatekeeper, 'target') } as ToolDefinition['gatekeeper'] }) };
  if (executor === 'hldp-api' || executor === 'hlpd-api') return { executor: 'hldp-api', ...(field(http, 'api') === undefined ? {} : { http: { api: field(http, 'api') } as ToolDefinition['http'] }) };
  if (executor === 'mcp' && field(mcp, 'server') !== undefined) return { executor, mcp: { server: field(mcp, 'server') } as ToolDefinition['mcp'] };
  return undefined;
}

/**
 * Why `tool` cannot run from this shell, when the secret of its own target (its gatekeeper, API, Forgejo or MCP
 * server) was left out of a config loaded with `secrets: 'optional'`: the key and the variable to set. Undefined
 * when the tool needs none of what was left out, so `hldp call` needs only the secrets of the tool it runs.
 */
export function missingTargetSecret(tool: ToolDefinition, config: GatewayConfig): { key: string; reason: string } | undefined {
  const key =
    tool.executor === 'gatekeeper' ? `gatekeepers.${tool.gatekeeper?.target ?? 'default'}`
      : tool.executor === 'hldp-api' ? `apis.${tool.http?.api ?? 'default'}`
        : tool.executor === 'git-forgejo' ? 'forgejo'
          : tool.executor === 'mcp' && tool.mcp ? `mcp_servers.${tool.mcp.server}`
            : undefined;
  if (key === undefined) return undefined;
  const missing = (config.secretsLeftOut ?? []).find((part) => part.key === key || part.key.startsWith(`${key}.`));
  if (!missing) return undefined;
  const reason = missing.reason.startsWith(`${missing.key}: `) ? missing.reason.slice(missing.key.length + 2) : missing.reason;
  return { key: missing.key, reason: `${reason}; '${tool.name}' runs on ${key}, and no other target's secret is needed to call it` };
}
