import type { ErrorCode, ExecutionResult } from '../core/index.js';
import { boundBytes, type RenderedOutput } from './bounded-output.js';

/** Milliseconds since `start` (a `performance.now()` reading), rounded to whole ms. */
export function elapsedSince(start: number): number {
  return Math.round(performance.now() - start);
}

/** A result for a call that failed before or without running a process: nothing produced, nothing cut. */
export function failedResult(code: ErrorCode, error: string, start: number): ExecutionResult {
  return {
    ok: false,
    output: '',
    error,
    stderr: '',
    code,
    exit_code: null,
    signal: null,
    timed_out: code === 'TIMEOUT',
    output_bytes: 0,
    cut_bytes: 0,
    duration_ms: elapsedSince(start),
  };
}

/**
 * A failure whose message carries a server's own text (an HTTP error's body, a JSON-RPC error, a server's stderr):
 * held to the tool's cap as output is, and, where cut, counted in `output_bytes` and `cut_bytes` as output is.
 */
export function boundedFailure(code: ErrorCode, message: string, cap: number, start: number): ExecutionResult {
  return cutFailure(code, boundBytes(message, cap), start);
}

/** A failure whose text was already bounded (`rendered`), counted as `boundedFailure` counts it; `prefix` says whose text it is. */
export function cutFailure(code: ErrorCode, rendered: RenderedOutput, start: number, prefix = ''): ExecutionResult {
  const result = failedResult(code, prefix + rendered.text, start);
  return rendered.cutBytes === 0 ? result : { ...result, output_bytes: rendered.totalBytes, cut_bytes: rendered.cutBytes };
}

/** The raw text of a thrown value: its code and message, and those of its cause. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const own = typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return error.cause === undefined ? own : `${own} (cause: ${describeError(error.cause)})`;
}

/** A successful result whose output is `rendered` (no process ran: no exit code, no stderr). */
export function succeededResult(rendered: RenderedOutput, start: number): ExecutionResult {
  return {
    ok: true,
    output: rendered.text,
    error: null,
    stderr: '',
    code: null,
    exit_code: null,
    signal: null,
    timed_out: false,
    output_bytes: rendered.totalBytes,
    cut_bytes: rendered.cutBytes,
    duration_ms: elapsedSince(start),
  };
}
