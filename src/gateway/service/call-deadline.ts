import { DEFAULT_TIMEOUT_MS, type TimeoutSource, type ToolDefinition } from '../../core/index.js';
import type { CallOutcome } from './call-outcome.js';

/** The deadline a call runs under, or why the one it asked for is refused. */
export type DeadlineChoice = { ok: true; timeoutMs: number; from: TimeoutSource } | { ok: false; outcome: Extract<CallOutcome, { kind: 'timeout_not_allowed' }> };

/** The longest deadline a call of `tool` may ask for: its `max_timeout_ms` (default its `timeout_ms`), within the gateway's ceiling. */
export function longestDeadline(tool: ToolDefinition, ceilingMs: number): number {
  return Math.min(tool.constraints.max_timeout_ms ?? tool.constraints.timeout_ms, ceilingMs);
}

/**
 * Spec §3: 30 s unless the definition says otherwise, and a long task sets its timeout explicitly. A call may ask
 * for any deadline up to the tool's longest; without one it runs under the tool's own `timeout_ms` (cut to the
 * ceiling). A request above the longest is refused before anything runs, naming what may be asked instead.
 */
export function chooseDeadline(tool: ToolDefinition, requestedMs: number | undefined, ceilingMs: number): DeadlineChoice {
  const longest = longestDeadline(tool, ceilingMs);
  if (requestedMs === undefined) return { ok: true, timeoutMs: Math.min(tool.constraints.timeout_ms, ceilingMs), from: unaskedSource(tool, ceilingMs) };
  if (Number.isSafeInteger(requestedMs) && requestedMs >= 1 && requestedMs <= longest) return { ok: true, timeoutMs: requestedMs, from: 'call' };
  const why =
    longest === ceilingMs && (tool.constraints.max_timeout_ms ?? tool.constraints.timeout_ms) > ceilingMs
      ? `the gateway's ceiling (max_call_timeout_ms) is ${ceilingMs} ms`
      : tool.constraints.max_timeout_ms === undefined
        ? `'${tool.name}' sets no constraints.max_timeout_ms, so a call may ask for at most its timeout_ms (${tool.constraints.timeout_ms} ms)`
        : `'${tool.name}' allows at most constraints.max_timeout_ms = ${tool.constraints.max_timeout_ms} ms`;
  const error =
    !Number.isSafeInteger(requestedMs) || requestedMs < 1
      ? `timeout_ms must be a whole number of milliseconds from 1 to ${longest}; got ${String(requestedMs)}`
      : `timeout_ms ${requestedMs} is more than this call may ask for: ${why}. Ask for at most ${longest} ms; nothing ran.`;
  return { ok: false, outcome: { kind: 'timeout_not_allowed', code: 'TIMEOUT_NOT_ALLOWED', tool: tool.name, error, requested_ms: requestedMs, allowed_ms: longest } };
}

/**
 * Where the deadline of a call that asked for none comes from: the gateway's ceiling where it cuts the tool's
 * `timeout_ms`, else the spec's 30 s default or the tool's own. The parsed definition has the default filled in, so a
 * definition that writes exactly 30000 reads as the default too: the same deadline either way.
 */
export function unaskedSource(tool: ToolDefinition, ceilingMs: number): TimeoutSource {
  const own = tool.constraints.timeout_ms;
  return own > ceilingMs ? 'ceiling' : own === DEFAULT_TIMEOUT_MS ? 'default' : 'tool';
}

/**
 * What a TIMEOUT's error adds: where the deadline came from (the call's own, the tool's `timeout_ms` — 30 s when a
 * definition sets none —, or the gateway's ceiling) and how long a call may ask for instead. "timed out after 2000 ms"
 * alone left a caller to guess both (review userW, W6).
 */
export function timeoutNote(tool: ToolDefinition, timeoutMs: number, ceilingMs: number): string {
  const { timeout_ms: own, max_timeout_ms: most } = tool.constraints;
  const unasked = Math.min(own, ceilingMs);
  const origin =
    timeoutMs !== unasked
      ? `this call's own deadline (it asked for ${timeoutMs} ms; '${tool.name}' runs ${unasked} ms when a call asks for none)`
      : own > ceilingMs
        ? `the gateway's max_call_timeout_ms (${ceilingMs} ms), below '${tool.name}'s constraints.timeout_ms (${own} ms)`
        : `'${tool.name}'s constraints.timeout_ms (${own} ms${own === DEFAULT_TIMEOUT_MS ? ', the default when a definition sets none' : ''})`;
  const longest = longestDeadline(tool, ceilingMs);
  const more =
    longest > timeoutMs
      ? `a call may ask for up to ${longest} ms (timeout_ms in POST /v1/call, --timeout in hldp call, _meta["hldp/timeout_ms"] over MCP)`
      : longest === ceilingMs && (most ?? own) > ceilingMs
        ? `no call may ask for more: that is the gateway's ceiling (max_call_timeout_ms)`
        : `no call may ask for more: ${most === undefined ? 'set' : 'raise'} constraints.max_timeout_ms in its TOOL.hdlp to let calls ask for longer`;
  return ` (the limit was ${origin}; ${more})`;
}
