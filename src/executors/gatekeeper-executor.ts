import type { ExecutionResult, ToolDefinition } from '../core/index.js';
import type { GatekeeperTarget } from './execution-context.js';
import { cancelGracefully, RUN_ID_HEADER } from './gatekeeper-cancel.js';
import { GatekeeperAnswerReader, TEXT_FIELDS, type ReadAnswer } from './gatekeeper-answer.js';
import { cutFailure, elapsedSince, failedResult } from './execution-result.js';
import { httpCall, joinUrl } from './http-call.js';
import type { Params } from './params.js';

// the variable the config reads a gatekeeper's token from (config's `variable`, which executors may not import)
const variable = (name: string): string => `HLDP_GATEKEEPER_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`;

/** Extra time the client gives a gatekeeper over the tool's own deadline, for the round trip. */
export const GATEKEEPER_SLACK_MS = 2_000;

// room kept under the cap for "gatekeeper 'NAME' answered HTTP 500: " before an error's body
const ERROR_PREFIX_BYTES = 120;

/** Why a `gatekeeper` tool cannot run here at all (see `unconfiguredTarget`): the gatekeeper it names is not configured. */
export function gatekeeperTargetProblem(tool: ToolDefinition, gatekeepers: Record<string, GatekeeperTarget> | undefined): string | undefined {
  const name = tool.gatekeeper?.target ?? 'default';
  if (gatekeepers && Object.hasOwn(gatekeepers, name)) return undefined;
  const known = Object.keys(gatekeepers ?? {});
  return `no gatekeeper named '${name}' is configured; add gatekeepers.${name} = {url, token} to the gateway config` + (known.length > 0 ? ` (configured: ${known.join(', ')})` : '');
}

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
  if (!target) return failedResult('EXECUTOR_MISCONFIGURED', gatekeeperTargetProblem(tool, gatekeepers) ?? `no gatekeeper named '${name}' is configured`, start);
  const { timeout_ms, max_output_bytes } = tool.constraints;
  const answer = new GatekeeperAnswerReader(max_output_bytes);
  // a cancel asks the gatekeeper to stop the run and waits a moment for its answer, what the command printed in it
  const cancel = cancelGracefully(target, signal);
  const outcome = await httpCall({
    url: joinUrl(target.url, '/exec'),
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', [RUN_ID_HEADER]: cancel.runId },
    body: JSON.stringify({ method: tool.method, params, timeout_ms, max_output_bytes, ...(tool.sandbox ? { sandbox: tool.sandbox } : {}) }),
    timeoutMs: timeout_ms + GATEKEEPER_SLACK_MS,
    // a 2xx answer is read as it arrives, at any size within the deadline, its texts held to the tool's cap
    answerSink: answer,
    maxBodyBytes: max_output_bytes,
    // an error's body is the server's text, not a result: held to the tool's own cap, prefix included
    maxErrorBodyBytes: Math.max(1, max_output_bytes - ERROR_PREFIX_BYTES),
    signal: cancel.signal,
    mayHaveDone: 'the command may have run, in part or whole (its side effects may have happened)',
  }).finally(() => cancel.clear());
  if (!outcome.ok) return keepingWhatWasRead(failedResult(outcome.code, `gatekeeper '${name}': ${outcome.message}`, start), answer);
  if (outcome.status < 200 || outcome.status > 299) {
    const failed = cutFailure('HTTP_ERROR', outcome.body, start, `gatekeeper '${name}' answered HTTP ${outcome.status}: `.slice(0, ERROR_PREFIX_BYTES));
    // the gatekeeper's text is its advice to its caller; the operator of this gateway needs to know which setting sends the token (review userW, W6)
    const note = ` (this gateway sent gatekeepers.${name}.token or ${variable(name)}: check it against that gatekeeper's HLDP_GATEKEEPER_TOKEN)`;
    // the note only where the error stays within the tool's cap, as every error text does
    if (outcome.status !== 401 || Buffer.byteLength(failed.error ?? '') + Buffer.byteLength(note) > max_output_bytes) return failed;
    return { ...failed, error: failed.error + note };
  }
  const read = answer.result();
  const parsed = typeof read === 'string' ? read : resultOf(read);
  if (typeof parsed === 'string') return failedResult('INTERNAL_ERROR', `gatekeeper '${name}' answered ${outcome.status} with ${parsed}`, start);
  // the receipt's time is the whole round trip the caller waited for
  return { ...parsed, duration_ms: elapsedSince(start) };
}

/**
 * A failed call with the texts of the answer read before it stopped: a deadline that passed while a large answer was
 * read left a receipt with nothing, output_bytes 0, for a tool that had run in milliseconds (review O, O7).
 */
function keepingWhatWasRead(failed: ExecutionResult, answer: GatekeeperAnswerReader): ExecutionResult {
  const { texts, bytes } = answer.partial();
  const output = texts.output;
  const stderr = texts.stderr;
  if (bytes === 0 || (!output && !stderr)) return failed;
  const totalBytes = (output?.totalBytes ?? 0) + (stderr?.totalBytes ?? 0);
  return {
    ...failed,
    error: `${failed.error} (the answer stopped after ${bytes} bytes: the output read until then is kept)`,
    output: output?.text ?? '',
    stderr: stderr?.text ?? '',
    output_bytes: totalBytes,
    cut_bytes: (output?.cutBytes ?? 0) + (stderr?.cutBytes ?? 0),
  };
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0);

/**
 * A gatekeeper's answer as a result held to the tool's cap as a local run is: output, stderr and error each kept head
 * and tail with the cut marked, however large the answer (read as it came, `GatekeeperAnswerReader`), and the counts at
 * least what arrived — a gatekeeper of another version, or a compromised host, sent 61 times the cap with
 * `output_bytes: 10` and the gateway stored it as it came, and past 12 × the cap + 64 KiB the answer was dropped
 * whole (review K, K11).
 */
function resultOf({ texts, fields }: ReadAnswer): ExecutionResult | string {
  if (typeof fields.ok !== 'boolean') return 'JSON that is not a result (no boolean \'ok\')';
  for (const field of TEXT_FIELDS) {
    if (fields[field] !== undefined && !(field === 'error' && fields[field] === null)) return `a result whose '${field}' is not text`;
  }
  const ok = fields.ok;
  const empty = { text: '', totalBytes: 0, cutBytes: 0 };
  const output = texts.output ?? empty;
  const stderr = texts.stderr ?? empty;
  const cutBytes = count(fields.cut_bytes) + output.cutBytes + stderr.cutBytes;
  const outputBytes = Math.max(count(fields.output_bytes), output.totalBytes + stderr.totalBytes, cutBytes);
  return {
    ok,
    output: output.text,
    error: texts.error?.text ?? (ok ? null : 'the gatekeeper reported a failure without an error text'),
    stderr: stderr.text,
    code: (fields.code as ExecutionResult['code'] | undefined) ?? (ok ? null : 'INTERNAL_ERROR'),
    exit_code: (fields.exit_code as number | null | undefined) ?? null,
    signal: (fields.signal as string | null | undefined) ?? null,
    timed_out: (fields.timed_out as boolean | undefined) ?? false,
    output_bytes: outputBytes,
    cut_bytes: cutBytes,
    duration_ms: 0,
    ...(isResourceLimit(fields.resource_limit) ? { resource_limit: fields.resource_limit } : {}),
    ...(fields.output_lossy === true ? { output_lossy: true } : {}),
    ...(fields.stderr_lossy === true ? { stderr_lossy: true } : {}),
  };
}

const RESOURCE_LIMITS: ReadonlySet<string> = new Set(['memory', 'cpu_seconds', 'processes', 'file_size']);

function isResourceLimit(value: unknown): value is NonNullable<ExecutionResult['resource_limit']> {
  return typeof value === 'string' && RESOURCE_LIMITS.has(value);
}
