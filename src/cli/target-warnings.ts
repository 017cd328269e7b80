import { eachTool, type ToolIndex } from '../core/index.js';
import { configuredTargets, unknownTarget, type GatewayConfig } from '../config/index.js';

// tools looked at between two yields to the event loop: the server answers while a large registry is gone through
const BATCH = 2000;

/**
 * Each served tool whose `gatekeeper.target`, `http.api` or `mcp.server` names nothing `config` configures, as
 * "file: message": every call of it would fail, and only at call time (review userW, W2). Made tool by tool, not
 * kept (`eachTool`), with the event loop served between batches, so a registry of 100,000 tools holds no request back.
 */
export async function unknownTargetLines(index: ToolIndex, config: GatewayConfig, signal: AbortSignal): Promise<string[]> {
  const targets = configuredTargets(config);
  const lines: string[] = [];
  let seen = 0;
  for (const tool of eachTool(index)) {
    if (signal.aborted) break;
    if (++seen % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    const problem = unknownTarget(tool, targets);
    if (problem) lines.push(`${tool.source.path}: tool '${tool.name}': ${problem.message}`);
  }
  return lines;
}
