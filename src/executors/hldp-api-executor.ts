import type { ExecutionResult, ToolDefinition } from '../core/index.js';
import type { ApiTarget } from './execution-context.js';
import { failedResult, succeededResult } from './execution-result.js';
import { httpCall, joinUrl } from './http-call.js';
import { buildHttpRequest } from './http-request-builder.js';
import { withDefaults, type Params } from './params.js';

/** The environment variable a composition root reads the base URL of API `name` from. */
export function apiUrlVariable(name: string): string {
  return `HLDP_API_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_URL`;
}

/** Runs an `hldp-api` tool: one HTTP request built from `definition.http`; the raw body is the output. */
export async function executeHldpApi(
  tool: ToolDefinition,
  rawParams: Params,
  apis: Record<string, ApiTarget> | undefined,
  signal?: AbortSignal,
): Promise<ExecutionResult> {
  const start = performance.now();
  if (!tool.http) return failedResult('EXECUTOR_MISCONFIGURED', `tool '${tool.name}' has executor 'hldp-api' but no http section; add http.path to its TOOL.hdlp`, start);
  const name = tool.http.api ?? 'default';
  const api = apis && Object.hasOwn(apis, name) ? apis[name] : undefined;
  if (!api?.url) {
    return failedResult(
      'EXECUTOR_MISCONFIGURED',
      `no base URL for API '${name}'; set apis.${name}.url in the gateway config or the environment variable ${apiUrlVariable(name)}`,
      start,
    );
  }
  const built = buildHttpRequest(tool.http, withDefaults(tool.params_schema, rawParams));
  if (!built.ok) return failedResult(built.code, built.message, start);
  const headers = { ...built.headers };
  if (api.token) headers.authorization = `Bearer ${api.token}`;
  for (const [header, value] of Object.entries(api.headers ?? {})) headers[header.toLowerCase()] = value;
  const outcome = await httpCall({
    url: joinUrl(api.url, built.path),
    method: built.method,
    headers,
    body: built.body,
    timeoutMs: tool.constraints.timeout_ms,
    maxBodyBytes: tool.constraints.max_output_bytes,
    signal,
  });
  if (!outcome.ok) return failedResult(outcome.code, outcome.message, start);
  const result = succeededResult(outcome.body, start);
  if (outcome.status >= 200 && outcome.status <= 299) return result;
  return { ...result, ok: false, code: 'HTTP_ERROR', error: `HTTP ${outcome.status}: ${outcome.body.text}` };
}
