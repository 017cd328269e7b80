import type { ExecutionResult, ToolDefinition } from '../core/index.js';
import type { GatekeeperTarget } from './execution-context.js';
import { boundBytes } from './bounded-output.js';
import { cutFailure, elapsedSince, failedResult } from './execution-result.js';
import { httpCall, joinUrl } from './http-call.js';
import type { Params } from './params.js';

/** Extra time the client gives a gatekeeper over the tool's own deadline, for the round trip. */
export const GATEKEEPER_SLACK_MS = 2_000;

// JSON escapes can grow a byte up to six characters, and the answer carries output and stderr
const responseCap = (maxOutputBytes: number): number => 12 * maxOutputBytes + 65_536;
// room kept under the cap for "gatekeeper 'NAME' answered HTTP 500: " before an error's body
const ERROR_PREFIX_BYTES = 120;

/** Runs a `gatekeeper` tool: `POST <target>/exec` with `{method, params, timeout_ms, max_output_bytes, sandbox?}`. */
export async function executeGatekeeper(
  tool: ToolDefinition,
  params: Params,
  gatekeepers: Record<string, GatekeeperTarget> | undefined,
  signal?: AbortSignal,
): Promise<ExecutionResult> {
  const start = performance.now();
  const name = tool.gatekeeper?.target ?? 'default';
  const target = gatekeepers && Object.hasOwn(gatekeepers, name) ? gatekeepers[name] : undefined;
  if (!target) {
    const known = Object.keys(gatekeepers ?? {});
    return failedResult(
      'EXECUTOR_MISCONFIGURED',
      `no gatekeeper named '${name}' is configured; add gatekeepers.${name} = {url, token} to the gateway config` +
        (known.length > 0 ? ` (configured: ${known.join(', ')})` : ''),
      start,
    );
  }
  const { timeout_ms, max_output_bytes } = tool.constraints;
  const outcome = await httpCall({
    url: joinUrl(target.url, '/exec'),
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method: tool.method, params, timeout_ms, max_output_bytes, ...(tool.sandbox ? { sandbox: tool.sandbox } : {}) }),
    timeoutMs: timeout_ms + GATEKEEPER_SLACK_MS,
    maxBodyBytes: responseCap(max_output_bytes),
    // an error's body is the server's text, not a result: held to the tool's own cap, prefix included
    maxErrorBodyBytes: Math.max(1, max_output_bytes - ERROR_PREFIX_BYTES),
    signal,
  });
  if (!outcome.ok) return failedResult(outcome.code, `gatekeeper '${name}': ${outcome.message}`, start);
  if (outcome.status < 200 || outcome.status > 299) {
    return cutFailure('HTTP_ERROR', outcome.body, start, `gatekeeper '${name}' answered HTTP ${outcome.status}: `.slice(0, ERROR_PREFIX_BYTES));
  }
  if (outcome.body.cutBytes > 0) return overCapAnswer(name, outcome.body.totalBytes, max_output_bytes, start);
  const parsed = parseGatekeeperResult(outcome.body.text);
  if (typeof parsed === 'string') return failedResult('INTERNAL_ERROR', `gatekeeper '${name}' answered 200 with ${parsed}`, start);
  // the receipt's time is the whole round trip the caller waited for
  return { ...heldToCap(parsed, max_output_bytes), duration_ms: elapsedSince(start) };
}

/**
 * A 200 whose body passed the response cap cannot be read as JSON (its middle was cut), and its parse error said
 * nothing of why (review K, K11): the receipt names the size and the cap instead, and counts what arrived as cut.
 */
function overCapAnswer(name: string, totalBytes: number, cap: number, start: number): ExecutionResult {
  const error =
    `gatekeeper '${name}' answered 200 with a body of ${totalBytes} bytes, past the ${responseCap(cap)} bytes the gateway reads for this tool ` +
    `(12 × its max_output_bytes ${cap} + 64 KiB), so its result was left out unread: the tool may have run there. ` +
    'A gatekeeper of this version cuts what it sends to max_output_bytes; check the version running at that URL';
  return { ...failedResult('INTERNAL_ERROR', error, start), output_bytes: totalBytes, cut_bytes: totalBytes };
}

const count = (value: number): number => (Number.isSafeInteger(value) && value > 0 ? value : 0);

/**
 * A gatekeeper's result held to the tool's cap as a local run is: output and stderr each cut (head, tail, marker) where
 * the remote sent more, and the counts at least what arrived — a gatekeeper of another version, or a compromised host,
 * sent 61 times the cap with `output_bytes: 10`, and the gateway stored it as it came (review K, K11).
 */
function heldToCap(result: ExecutionResult, cap: number): ExecutionResult {
  const output = boundBytes(result.output, cap);
  const stderr = boundBytes(result.stderr, cap);
  const cutBytes = count(result.cut_bytes) + output.cutBytes + stderr.cutBytes;
  const outputBytes = Math.max(count(result.output_bytes), output.totalBytes + stderr.totalBytes, cutBytes);
  const error = result.error === null ? null : boundBytes(result.error, cap).text;
  return { ...result, output: output.text, error, stderr: stderr.text, output_bytes: outputBytes, cut_bytes: cutBytes };
}

const STRING_FIELDS = ['output', 'stderr'] as const;

/** The gatekeeper's JSON as a result, or what is wrong with it. */
function parseGatekeeperResult(text: string): ExecutionResult | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `a body that is not JSON (${(error as Error).message}): ${text.slice(0, 200)}`;
  }
  if (typeof value !== 'object' || value === null || typeof (value as { ok?: unknown }).ok !== 'boolean') {
    return `JSON that is not a result (no boolean 'ok'): ${text.slice(0, 200)}`;
  }
  const result = value as Partial<ExecutionResult>;
  for (const field of STRING_FIELDS) {
    if (result[field] !== undefined && typeof result[field] !== 'string') return `a result whose '${field}' is not text`;
  }
  return {
    ok: result.ok!,
    output: result.output ?? '',
    error: result.error ?? (result.ok ? null : 'the gatekeeper reported a failure without an error text'),
    stderr: result.stderr ?? '',
    code: result.code ?? (result.ok ? null : 'INTERNAL_ERROR'),
    exit_code: result.exit_code ?? null,
    signal: result.signal ?? null,
    timed_out: result.timed_out ?? false,
    output_bytes: result.output_bytes ?? 0,
    cut_bytes: result.cut_bytes ?? 0,
    duration_ms: result.duration_ms ?? 0,
    ...(isResourceLimit(result.resource_limit) ? { resource_limit: result.resource_limit } : {}),
  };
}

const RESOURCE_LIMITS: ReadonlySet<string> = new Set(['memory', 'cpu_seconds', 'processes', 'file_size']);

function isResourceLimit(value: unknown): value is NonNullable<ExecutionResult['resource_limit']> {
  return typeof value === 'string' && RESOURCE_LIMITS.has(value);
}
