import type { ExecutionResult, ToolDefinition } from '../core/index.js';
import { secretsOf, type ExecutionContext } from './execution-context.js';
import { describeError, failedResult } from './execution-result.js';
import { executeForgejo } from './forgejo-executor.js';
import { executeGatekeeperRead } from './encoded-reads.js';
import { executeHldpApi } from './hldp-api-executor.js';
import { executeMcp } from './mcp-executor.js';
import type { Params } from './params.js';
import { redactSecrets } from './redact.js';
import { executeShell } from './shell-executor.js';

function dispatch(tool: ToolDefinition, params: Params, context: ExecutionContext): Promise<ExecutionResult> {
  switch (tool.executor) {
    case 'shell':
      return executeShell(tool, params, context.shell, context.signal);
    case 'gatekeeper':
      return executeGatekeeperRead(tool, params, context);
    case 'hldp-api':
      return executeHldpApi(tool, params, context.apis, context.signal);
    case 'git-forgejo':
      return executeForgejo(tool, params, context.forgejo, context.signal);
    case 'mcp':
      return executeMcp(tool, params, context);
  }
}

/**
 * The tool as it may run here: its `max_output_bytes` cut to the gateway's ceiling, as `max_call_timeout_ms` cuts
 * deadlines. A definition could ask for a GiB per channel, held in the gateway's heap (review K, K6).
 */
function withinCeiling(tool: ToolDefinition, ceiling: number | undefined): ToolDefinition {
  if (ceiling === undefined || tool.constraints.max_output_bytes <= ceiling) return tool;
  return { ...tool, constraints: { ...tool.constraints, max_output_bytes: ceiling } };
}

/**
 * Runs a registered tool with params already validated against its schema, under its constraints.
 * One result shape for success and failure; an expected failure is a result, never a throw.
 * Any configured secret the tool echoed is replaced by `[REDACTED]`.
 */
export async function execute(tool: ToolDefinition, params: Params, context: ExecutionContext = {}): Promise<ExecutionResult> {
  const start = performance.now();
  if (context.signal?.aborted) return failedResult('CANCELLED', 'cancelled by the caller before the call started; nothing ran', start);
  let result: ExecutionResult;
  try {
    result = await dispatch(withinCeiling(tool, context.maxOutputBytes), params, context);
    result ??= failedResult('EXECUTOR_MISCONFIGURED', `unknown executor '${String(tool.executor)}'; use shell, gatekeeper, hldp-api, git-forgejo or mcp`, start);
  } catch (error) {
    result = failedResult('INTERNAL_ERROR', `executor '${tool.executor}' failed unexpectedly: ${describeError(error)}`, start);
  }
  try {
    return redactSecrets(result, secretsOf(context));
  } catch (error) {
    // the call ran, but what it returned could not be checked for secrets: the receipt keeps why, never the raw result
    return failedResult('INTERNAL_ERROR', `executor '${tool.executor}' ran the call, but its result could not be checked for secrets and is not kept: ${describeError(error)}`, start);
  }
}
