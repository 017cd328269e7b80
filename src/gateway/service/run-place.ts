import { realpathSync } from 'node:fs';
import type { GatewayConfig } from '../../config/index.js';
import type { RunPlace } from '../../store/index.js';

/** Where this process runs calls, as an approval request records it: the workspace (symlinks resolved), the sandbox settings and the deadline ceiling. */
export function runPlace(config: GatewayConfig): RunPlace {
  const runAs = config.sandboxRunAs;
  return {
    workspace: realOrGiven(config.workspaceRoot),
    sandbox: config.sandbox,
    run_as: runAs === undefined ? null : typeof runAs === 'string' ? runAs : `${runAs.uid}:${runAs.gid}`,
    hide: [...new Set(config.sandboxHide.map(realOrGiven))].sort(),
    ceiling: config.sandboxCeiling ?? null,
    max_call_timeout_ms: config.maxCallTimeoutMs,
  };
}

// a workspace not made yet (the gateway makes it on first use) is compared as written
function realOrGiven(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
