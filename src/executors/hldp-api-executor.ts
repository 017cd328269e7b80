import type { ExecutionResult, ToolDefinition } from '../core/index.js';
import type { ApiTarget } from './execution-context.js';
import { failedResult, succeededResult } from './execution-result.js';
import { httpCall, joinUrl, redactUrl, shownJoinedUrl } from './http-call.js';
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
  const problem = apiTargetProblem(tool, apis);
  const api = tool.http && apis && Object.hasOwn(apis, tool.http.api ?? 'default') ? apis[tool.http.api ?? 'default'] : undefined;
  if (problem !== undefined || !tool.http || !api?.url) return failedResult('EXECUTOR_MISCONFIGURED', problem ?? `tool '${tool.name}' has no API to call`, start);
  const built = buildHttpRequest(tool.http, withDefaults(tool.params_schema, rawParams));
  if (!built.ok) return failedResult(built.code, built.message, start);
  const headers = { ...built.headers };
  if (api.token) headers.authorization = `Bearer ${api.token}`;
  for (const [header, value] of Object.entries(api.headers ?? {})) headers[header.toLowerCase()] = value;
  const url = joinUrl(api.url, built.path);
  const outcome = await httpCall({
    url,
    method: built.method,
    headers,
    body: built.body,
    timeoutMs: tool.constraints.timeout_ms,
    maxBodyBytes: tool.constraints.max_output_bytes,
    signal,
    // the configured URL's path may be the secret itself (a chat webhook): never shown (review Z4, F7)
    shownUrl: shownJoinedUrl(api.url, url),
  });
  if (!outcome.ok) return failedResult(outcome.code, outcome.message, start);
  const result = succeededResult(outcome.body, start);
  if (outcome.status >= 200 && outcome.status <= 299) return result;
  return { ...result, ok: false, code: 'HTTP_ERROR', error: `HTTP ${outcome.status}: ${redirectNote(outcome.status, outcome.headers.location, url, api.url)}${outcome.body.text}` };
}

/** Why an `hldp-api` tool cannot run here at all (see `unconfiguredTarget`): no http section, or no URL for its API. */
export function apiTargetProblem(tool: ToolDefinition, apis: Record<string, ApiTarget> | undefined): string | undefined {
  if (!tool.http) return `tool '${tool.name}' has executor 'hldp-api' but no http section; add http.path to its TOOL.hdlp`;
  const name = tool.http.api ?? 'default';
  const api = apis && Object.hasOwn(apis, name) ? apis[name] : undefined;
  return api?.url ? undefined : missingApi(name, apis);
}

/**
 * Why API `name` has no URL, and what makes it one. `HLDP_API_<NAME>_URL` only completes a name the file declares
 * (or `default`): the advice to set the variable alone was false for any other name (review userW, W8).
 */
function missingApi(name: string, apis: Record<string, ApiTarget> | undefined): string {
  if (name === 'default' || (apis && Object.hasOwn(apis, name))) {
    return `no base URL for API '${name}'; set apis.${name}.url in the gateway config or the environment variable ${apiUrlVariable(name)}`;
  }
  const known = Object.keys(apis ?? {});
  return (
    `no API '${name}' is configured${known.length ? ` (configured: ${known.join(', ')})` : ''}: declare it in the gateway config file ` +
    `(apis: {${name}: {}} at least), its url there (apis.${name}.url) or in ${apiUrlVariable(name)}, which is read only for an API the file declares; ` +
    `or, if the tool's http.api is misspelt, fix it in its TOOL.hdlp`
  );
}

/** A 3xx answer says where it pointed and that it was not followed: "HTTP 302: " alone told nothing (review userW, W6). */
function redirectNote(status: number, location: string | string[] | undefined, url: string, base: string): string {
  if (status < 300 || status > 399) return '';
  const target = typeof location === 'string' ? location : location?.[0];
  let shown = 'none given';
  if (target !== undefined) {
    try {
      const located = new URL(target, url);
      // a Location on the API's own origin is shown as the call's URL is, its configured path hidden (review Z4, F7)
      shown = located.origin === new URL(url).origin ? shownJoinedUrl(base, located.toString()) : redactUrl(located.toString());
    } catch {
      shown = 'not a URL';
    }
  }
  return `a redirect (Location: ${shown}), which hldp-api does not follow: point apis' url or the tool's http.path at the final address. `;
}
