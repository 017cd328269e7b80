import { FORGEJO_METHOD_PARAMETERS, type ExecutionResult, type JsonSchema, type ToolDefinition } from '../core/index.js';
import { boundBytes } from './bounded-output.js';
import type { ForgejoConfig } from './execution-context.js';
import { boundedFailure, failedResult, succeededResult } from './execution-result.js';
import { ForgejoRepositoryApi } from './forgejo-api.js';
import { FORGEJO_METHODS } from './forgejo-methods.js';
import { redactUrl } from './http-call.js';
import { ownValue, withDefaults, type Params } from './params.js';

// owner and name as Forgejo names them; `.` and `..` are refused, as the URL would resolve them to another path
const REPOSITORY_NAME = /^(?!\.\.?\/)[A-Za-z0-9_.-]+\/(?!\.\.?$)[A-Za-z0-9_.-]+$/;

// the methods that commit to the repository; create_issue writes no file
const WRITING_METHODS = new Set(['write_file']);

/**
 * Whether `owner/name` on the instance at `instance` is the registry served from `registry` (review P, P17): the same
 * host name (a Forgejo serves its API and git on one host; the port is not compared, so a proxy's other port still
 * counts) and the same path, `.git` and letter case aside as Forgejo sets them aside. A registry that is a local path
 * or another host name for the same server is not recognised.
 */
function isRegistry(instance: string, repository: string, registry: string): boolean {
  let base: URL;
  let source: URL;
  try {
    base = new URL(instance);
    source = new URL(registry);
  } catch {
    return false;
  }
  if (!/^https?:$/.test(source.protocol) || base.hostname.toLowerCase() !== source.hostname.toLowerCase()) return false;
  const path = (text: string) => text.replace(/\/+$/, '').replace(/\.git$/i, '').toLowerCase();
  return path(source.pathname) === path(`${base.pathname.replace(/\/+$/, '')}/${repository}`);
}

/**
 * Why no call can give the method a parameter it needs, blamed on the definition (review userY, Y1): the parameter is
 * missing and `params_schema` does not declare it, or declares it as something other than text. A declared parameter
 * a call left out stays the caller's INVALID_PARAMS.
 */
function unfillableParameter(tool: ToolDefinition, params: Params): string | undefined {
  const properties = tool.params_schema.properties;
  const declared = (typeof properties === 'object' && properties !== null ? properties : {}) as Record<string, JsonSchema>;
  for (const name of FORGEJO_METHOD_PARAMETERS[tool.method] ?? []) {
    const property = Object.hasOwn(declared, name) ? declared[name] : undefined;
    const types = typeof property?.type === 'string' ? [property.type] : Array.isArray(property?.type) ? (property.type as unknown[]) : undefined;
    // both forms of params_schema: `required: true` on a property is the shorthand's alone (review userZ2, U8)
    const fix = `declare it as text in ${tool.source.path}: in the shorthand, ${name}: { type: string, required: true }; in a full JSON Schema, add '${name}' to properties as {type: string} and to required (hldp validate reports it as METHOD_PARAMS_MISMATCH)`;
    if (property === undefined && ownValue(params, name) === undefined) {
      return `tool '${tool.name}' cannot run git-forgejo method '${tool.method}': it needs parameter '${name}', which the tool's params_schema does not declare, so no caller is asked for it; ${fix}`;
    }
    if (types !== undefined && !types.includes('string')) {
      return `tool '${tool.name}' cannot run git-forgejo method '${tool.method}': it reads parameter '${name}' as text, but the tool's params_schema declares it as ${types.join(' or ')}; ${fix}`;
    }
  }
  return undefined;
}

/**
 * Why a `git-forgejo` tool cannot run here at all (see `unconfiguredTarget`): no instance configured, a method it
 * lacks, no repository, the registry itself as a write's target, or a parameter the method needs that no call can give.
 */
export function forgejoTargetProblem(tool: ToolDefinition, rawParams: Params, config: ForgejoConfig | undefined): string | undefined {
  if (!config?.url || !config.token) {
    return `tool '${tool.name}' acts on Forgejo, but no instance is configured; set forgejo.url and forgejo.token (a personal access token) in the gateway config`;
  }
  if (!Object.hasOwn(FORGEJO_METHODS, tool.method)) return `git-forgejo has no method '${tool.method}'; use one of: ${Object.keys(FORGEJO_METHODS).join(', ')}`;
  const repository = tool.forgejo?.repo ?? config.repo;
  if (!repository || !REPOSITORY_NAME.test(repository)) {
    return `tool '${tool.name}' names no repository as owner/name (neither may be '.' or '..'); set forgejo.repo in its TOOL.hdlp or in the gateway config`;
  }
  if (WRITING_METHODS.has(tool.method) && config.registry !== undefined && isRegistry(config.url, repository, config.registry)) {
    // the registry's address as the serve line and receipts show it: a `user:password@` in it is the registry's own
    // credential, and this text is the agent's answer, a receipt and an event (review Z15, Z15-1)
    return `tool '${tool.name}' would commit to ${repository}, the registry this gateway serves (${redactUrl(config.registry)}): an agent may not rewrite its own tools and policies; point the tool's forgejo.repo (or the config's) at another repository`;
  }
  return unfillableParameter(tool, withDefaults(tool.params_schema, rawParams));
}

/** Runs a `git-forgejo` tool: its `method` (read_file, list_commits, list_tree, write_file, create_issue) through Forgejo's REST API. */
export async function executeForgejo(
  tool: ToolDefinition,
  rawParams: Params,
  config: ForgejoConfig | undefined,
  signal?: AbortSignal,
): Promise<ExecutionResult> {
  const start = performance.now();
  const problem = forgejoTargetProblem(tool, rawParams, config);
  if (problem !== undefined || !config) return failedResult('EXECUTOR_MISCONFIGURED', problem ?? 'no Forgejo instance is configured', start);
  const method = FORGEJO_METHODS[tool.method]!;
  const repository = (tool.forgejo?.repo ?? config.repo)!;
  const params = withDefaults(tool.params_schema, rawParams);
  const api = new ForgejoRepositoryApi(config, repository, tool.constraints.timeout_ms, signal);
  const outcome = await method(api, params, config);
  // an error's body is the server's text (up to the API's 32 MiB): bounded in the receipt as output is, and what was cut counted
  if (!outcome.ok) return boundedFailure(outcome.code, outcome.message, tool.constraints.max_output_bytes, start);
  return succeededResult(boundBytes(outcome.output, tool.constraints.max_output_bytes, outcome.encoding), start);
}
