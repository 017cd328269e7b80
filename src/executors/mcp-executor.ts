import { exceedsDepth, MAX_JSON_DEPTH, type ErrorCode, type ExecutionResult, type ToolDefinition } from '../core/index.js';
import { cutErrorMessage } from './cut-error-message.js';
import { startDeadline } from './deadline.js';
import type { ExecutionContext, McpServers } from './execution-context.js';
import { boundedFailure, elapsedSince, failedResult } from './execution-result.js';
import { JsonStringCutter } from './json-string-cutter.js';
import { answerParts, withCutsShown } from './mcp-answer-parts.js';
import type { Params } from './params.js';

/** Room in an MCP server's answer for what is not its text: the JSON-RPC envelope, content items' fields, `_meta`. */
const ANSWER_ENVELOPE_BYTES = 1024 * 1024;

/**
 * The most bytes an MCP server's answer to a tool capped at `cap` may take once its long strings are cut (each at most
 * `cap` bytes of text): its text as JSON, every byte escaped (`\u0000` is 6), twice over (`structuredContent` may repeat
 * it), and the envelope. Past it the answer is not read on.
 */
function mcpAnswerBound(cap: number): number {
  return 12 * cap + ANSWER_ENVELOPE_BYTES;
}

/** Why an `mcp` tool cannot run here at all (see `unconfiguredTarget`): no mcp section, or its server is not configured. */
export function mcpTargetProblem(tool: ToolDefinition, servers: McpServers | undefined): string | undefined {
  if (!tool.mcp) return `tool '${tool.name}' has executor 'mcp' but no mcp section; add mcp: {server, tool} to its TOOL.hdlp`;
  if (!servers) return `tool '${tool.name}' runs on MCP server '${tool.mcp.server}', but no MCP servers are configured; add mcp_servers.${tool.mcp.server} to the gateway config`;
  return servers.unknownServer?.(tool.mcp.server);
}

/**
 * Runs an `mcp` tool: `tools/call` of `mcp.tool` on the configured server `mcp.server`, with the params as its
 * arguments. The receipt keeps the raw text, the other content blocks as `attachments`, `structuredContent` whole, and a result
 * marked `isError` as `ok: false` with its raw text in `error`. At the deadline the call is cancelled on the
 * server (`notifications/cancelled`) and the receipt says `TIMEOUT`.
 */
export async function executeMcp(tool: ToolDefinition, params: Params, context: ExecutionContext): Promise<ExecutionResult> {
  const start = performance.now();
  const problem = mcpTargetProblem(tool, context.mcpServers);
  if (problem !== undefined || !tool.mcp || !context.mcpServers) return failedResult('EXECUTOR_MISCONFIGURED', problem ?? `tool '${tool.name}' has no MCP server to call`, start);
  const { timeout_ms: timeoutMs, max_output_bytes: cap } = tool.constraints;
  const deadline = startDeadline(timeoutMs, context.signal);
  // a string longer on the wire than a text of `cap` bytes can be (all escapes) is cut as it arrives: an answer past
  // the bound was a failed call (MCP_ERROR), where every other executor's over-cap output is a receipt, cut
  let cutter: JsonStringCutter | undefined;
  let outcome;
  try {
    outcome = await context.mcpServers.callTool(tool.mcp.server, tool.mcp.tool, params, {
      signal: deadline.signal,
      timeoutMs,
      idempotent: tool.mcp.idempotent === true,
      maxAnswerBytes: mcpAnswerBound(cap),
      answerCutter: () => (cutter = new JsonStringCutter(cap, 6 * cap)),
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
      ...(context.caller === undefined ? {} : { caller: context.caller }),
    });
  } finally {
    deadline.clear();
  }
  const notes = outcome.notes?.length ? `${outcome.notes.join('\n')}\n` : '';
  const stopped = deadline.reason();
  if (stopped !== null) {
    const what = stopped === 'timeout' ? `timed out after ${timeoutMs} ms` : 'cancelled by the caller';
    // a call stopped while its server was starting was never sent: saying it was cancelled there would be untrue
    const where = !outcome.ok && outcome.unsent === true
      ? ` while MCP server '${tool.mcp.server}' was starting; the call was not sent to it`
      : `; the call was cancelled on MCP server '${tool.mcp.server}' (notifications/cancelled)`;
    return withNotes(failedResult(stopped === 'timeout' ? 'TIMEOUT' : 'CANCELLED', `${what}${where}`, start), notes);
  }
  if (!outcome.ok) return withNotes(cutErrorMessage(outcome.code, outcome.message, cap, cutter?.cuts, start), notes);
  const { answer } = outcome;
  // what the cutter left out counts where its string ends up, once; its markers are not the tool's bytes
  const parts = answerParts(answer, cap, (text) => cutter?.cutOf(text));
  const { note, ...structured } = structuredPart(answer.structuredContent, cutter);
  const failed = answer.isError === true;
  return {
    ok: !failed,
    output: failed ? '' : parts.text,
    error: failed ? parts.text : null,
    stderr: `${notes}${note}`,
    code: failed ? 'MCP_ERROR' : null,
    exit_code: null,
    signal: null,
    timed_out: false,
    output_bytes: parts.outputBytes,
    cut_bytes: parts.cutBytes,
    duration_ms: elapsedSince(start),
    ...(parts.attachments.length === 0 ? {} : { attachments: parts.attachments }),
    ...structured,
  };
}

// A structuredContent nested past MAX_JSON_DEPTH is left out, and the receipt says so: a real tool's answer needs a
// few levels, while every walk over a receipt (redaction, its canonical text, the JSON its reader gets) pays for each.
function structuredPart(content: Record<string, unknown> | undefined, cutter: JsonStringCutter | undefined): { structured_content?: Record<string, unknown>; note: string } {
  if (content === undefined) return { note: '' };
  if (exceedsDepth(content, MAX_JSON_DEPTH)) {
    return { note: `structuredContent nested more than ${MAX_JSON_DEPTH} levels deep; it was left out of this receipt (the text content is kept)\n` };
  }
  // a base64 stand-in of the cutter's is shown as the payload cut, as any long string of it is
  if (cutter?.stoodIn !== true) return { structured_content: content, note: '' };
  return { structured_content: withCutsShown(content, (text) => cutter.cutOf(text)) as Record<string, unknown>, note: '' };
}

// what the connection did besides the call (a restart after a crash) goes where a process's stderr would
function withNotes(result: ExecutionResult, notes: string): ExecutionResult {
  return notes === '' ? result : { ...result, stderr: notes };
}
