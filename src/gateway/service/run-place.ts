import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import type { GatewayConfig } from '../../config/index.js';
import { isLoopback } from '../../core/index.js';
import { minimalEnvironment } from '../../executors/index.js';
import { canonicalJson, type RunPlace } from '../../store/index.js';

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
    runs_with: runsWith(config),
  };
}

/**
 * Everything else of this process that changes what a call does, each group by a digest (review Z3, 1): the
 * environment shell tools inherit (each variable's value: an instance with `inherit_env: [AWS_SECRET_ACCESS_KEY]`
 * runs a command with it), and each target a tool reaches with its URL and credentials. Hashed, so that a request,
 * which its caller may read, holds no secret; this gateway's own API (`apis.default` when none is configured) is
 * left out, as it is the store's callers' anyway and differs by port only.
 */
export function runsWith(config: GatewayConfig, environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const digest = (value: unknown): string => createHash('sha256').update(canonicalJson(value)).digest('hex');
  const groups: Record<string, string> = {};
  for (const [name, value] of Object.entries(minimalEnvironment({}, config.shell.inheritEnv, environment))) groups[`env:${name}`] = digest(value);
  for (const [kind, targets] of [['apis', config.apis], ['gatekeepers', config.gatekeepers], ['mcp_servers', config.mcpServers]] as const) {
    for (const [name, target] of Object.entries(targets)) groups[`${kind}:${name}`] = digest(target);
  }
  if (config.forgejo) groups.forgejo = digest(config.forgejo);
  groups.embedded_gatekeeper = digest(config.embeddedGatekeeper.enabled);
  groups.max_output_bytes = digest(config.maxOutputBytes);
  return groups;
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
