import { wholePlaceholder, type ToolDefinition } from '../core/index.js';

/** MCP tool annotations: only hints the definition itself makes true (an absent hint keeps the protocol's cautious default). */
export interface ToolHints {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

// methods that only read, whatever their params: the gatekeeper's and the Forgejo executor's own method tables
const READ_ONLY_METHODS: Partial<Record<ToolDefinition['executor'], ReadonlySet<string>>> = {
  gatekeeper: new Set(['read_file', 'read_bytes', 'list_dir']),
  'git-forgejo': new Set(['read_file', 'list_commits', 'list_tree']),
};

// RFC 9110 §9.2.1: the safe methods
const SAFE_HTTP_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// the gatekeeper's file methods stay inside its root; a shell command (exec) may reach anything
const CLOSED_WORLD_METHODS: Partial<Record<ToolDefinition['executor'], ReadonlySet<string>>> = {
  gatekeeper: new Set(['read_file', 'read_bytes', 'list_dir', 'write_file']),
};

/** The annotations a definition justifies: `readOnlyHint` from its executor and method, `destructiveHint` from `require_confirm`, `idempotentHint` from `mcp.idempotent`. */
export function toolHints(tool: ToolDefinition): ToolHints {
  const readOnly = isReadOnly(tool);
  const openWorld = tool.executor === 'hldp-api' || tool.executor === 'git-forgejo' ? true : CLOSED_WORLD_METHODS[tool.executor]?.has(tool.method) ? false : undefined;
  return {
    title: tool.display,
    ...(readOnly ? { readOnlyHint: true } : {}),
    // the author asked for a human or agent to confirm each call: the one sure sign of a call that changes things
    ...(!readOnly && tool.constraints.require_confirm ? { destructiveHint: true } : {}),
    // the author (or the server's own hints, through hldp import mcp) says a second run does no more than the first
    ...(!readOnly && tool.mcp?.idempotent === true ? { idempotentHint: true } : {}),
    ...(openWorld === undefined ? {} : { openWorldHint: openWorld }),
  };
}

/** Whether every call the definition allows only reads: a read method, or HTTP requests whose method can only be safe. */
export function isReadOnly(tool: ToolDefinition): boolean {
  if (tool.executor === 'hldp-api') return httpMethods(tool)?.every((method) => SAFE_HTTP_METHODS.has(method)) ?? false;
  return READ_ONLY_METHODS[tool.executor]?.has(tool.method) ?? false;
}

/** The HTTP methods an `hldp-api` tool can send, or undefined when a param may pick any. */
function httpMethods(tool: ToolDefinition): string[] | undefined {
  const template = tool.http?.method ?? 'GET';
  const param = wholePlaceholder(template);
  if (param === undefined) return template.includes('{') ? undefined : [template.toUpperCase()];
  const properties = tool.params_schema['properties'] as Record<string, Record<string, unknown>> | undefined;
  const property = properties?.[param];
  const choices = property?.['enum'] ?? (property && 'const' in property ? [property['const']] : undefined);
  if (!Array.isArray(choices) || !choices.every((choice) => typeof choice === 'string')) return undefined;
  return choices.map((choice: string) => choice.toUpperCase());
}
