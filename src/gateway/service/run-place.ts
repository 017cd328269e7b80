import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import type { GatewayConfig } from '../../config/index.js';
import { isLoopback } from '../../core/index.js';
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

/**
 * Where people on other hosts reach this gateway, as a request it files names it for a decider elsewhere: the URL it
 * calls itself at (`servingAt`, 127.0.0.1 for a gateway listening on every address) is right only on its own host,
 * so a gateway listening on every address is named by its host's name, and one on one address by that address.
 */
export function reachableUrl(servingAt: string | undefined, listenHost: string): string | null {
  if (servingAt === undefined) return null;
  if (isLoopback(listenHost)) return servingAt;
  const url = new URL(servingAt);
  const wildcard = listenHost === '' || listenHost === '0.0.0.0' || listenHost === '::' || listenHost === '[::]';
  url.hostname = wildcard ? hostname() : listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost;
  return url.origin;
}
