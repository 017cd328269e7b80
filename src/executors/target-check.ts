import type { ExecutionResult, ToolDefinition } from '../core/index.js';
import type { ExecutionContext } from './execution-context.js';
import { failedResult } from './execution-result.js';
import { forgejoTargetProblem } from './forgejo-executor.js';
import { gatekeeperTargetProblem } from './gatekeeper-executor.js';
import { apiTargetProblem } from './hldp-api-executor.js';
import { mcpTargetProblem } from './mcp-executor.js';
import type { Params } from './params.js';
import { shellTargetProblem } from './shell-executor.js';

/**
 * Why `tool` cannot run here at all, whoever calls or approves it: what its executor is to act on is not configured
 * (no Forgejo instance, an API or a gatekeeper the config does not declare, …). Each executor asks its own part of
 * this first, so the failure is the one a call that needs no confirmation gets; the gateway asks it before it files a
 * confirmation or an approval request, so no person is asked to decide a call that cannot happen (review userZ7 F14).
 * An EXECUTOR_MISCONFIGURED result (nothing ran), or undefined when the target is there.
 */
export function unconfiguredTarget(tool: ToolDefinition, params: Params, context: ExecutionContext): ExecutionResult | undefined {
  const start = performance.now();
  const problem = targetProblem(tool, params, context);
  return problem === undefined ? undefined : failedResult('EXECUTOR_MISCONFIGURED', problem, start);
}

function targetProblem(tool: ToolDefinition, params: Params, context: ExecutionContext): string | undefined {
  switch (tool.executor) {
    case 'shell':
      return shellTargetProblem(tool, context.shell);
    case 'gatekeeper':
      return gatekeeperTargetProblem(tool, context.gatekeepers);
    case 'hldp-api':
      return apiTargetProblem(tool, context.apis);
    case 'git-forgejo':
      return forgejoTargetProblem(tool, params, context.forgejo);
    case 'mcp':
      return mcpTargetProblem(tool, context.mcpServers);
  }
  return undefined;
}
