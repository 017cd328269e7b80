import type { ApiTarget, ForgejoConfig, GatekeeperTarget } from '../executors/index.js';
import type { McpServerConfig } from '../mcp-servers/index.js';
import type { PrincipalConfig } from '../policy/index.js';
import type { SandboxMode } from '../sandbox/index.js';
import type { SessionsConfig } from '../sessions/index.js';
import type { ModelStageOptions } from '../matcher/index.js';
import type { SandboxCeiling } from '../core/index.js';

/** Everything the gateway runs with, resolved from file, environment and flags; secrets included, so never log it whole. */
export interface GatewayConfig {
  repository: { source: string; ref?: string; token?: string; pollIntervalMs: number; maxDefinitionBytes: number };
  /** the config file read (--config, HLDP_CONFIG), absolute; absent when none was */
  configFile?: string;
  cacheDir: string;
  dataDir: string;
  receiptsDb: string;
  /** the shared store: PostgreSQL at `url` (its password is a secret), else the SQLite file `receiptsDb` */
  store: { url?: string; poolMax: number };
  /** pruning of old receipts; none when unset */
  receiptsRetention?: { days?: number; maxRows?: number; intervalMs: number };
  /** pruning of decided approval requests (never a pending one); none when unset */
  approvalsRetention?: { days?: number; maxRows?: number; intervalMs: number };
  /** pruning of rejected-call records; none when unset */
  rejectionsRetention?: { days?: number; maxRows?: number; intervalMs: number };
  /** `publicUrl`: where people reach this instance (`listen.public_url`), as a request it files names it; absent: guessed from the host's name */
  /** `maxConnections`: open connections `serve` holds at most (`listen.max_connections`, HLDP_MAX_CONNECTIONS); absent: no bound, as Node's own */
  listen: { host: string; port: number; publicUrl?: string; maxConnections?: number };
  apiToken?: string;
  /** named identities with token digests and roles; `api_token`, if set, is among them as `admin` */
  principals: PrincipalConfig[];
  /** principals' tokens given in clear (from the environment): only so that no result can show them */
  principalTokens: string[];
  /** principals whose token was not at hand, left out of `principals` by a command that authenticates no one */
  principalsLeftOut?: Array<Pick<PrincipalConfig, 'name' | 'roles'>>;
  /** gatekeepers, APIs, Forgejo, MCP servers and webhooks whose secret was not at hand, left out by a command that runs no tool */
  secretsLeftOut?: Array<{ key: string; reason: string }>;
  webhookSecret?: string;
  maxBodyBytes: number;
  confirmationTtlMs: number;
  /** how many approval requests one caller may have waiting at once (approvals.max_pending_per_caller) */
  maxPendingPerCaller: number;
  /** how long an approved call's run is leased to the process running it, renewed while it runs (approvals.run_lease_ms) */
  approvalRunLeaseMs: number;
  /** the longest deadline any call may run under, whatever a tool's constraints allow */
  maxCallTimeoutMs: number;
  /** how many calls (and confirmations) one caller may have running at once; one more is refused, 429 TOO_MANY_CALLS */
  maxCallsInFlightPerCaller: number;
  /** the largest output cap (per channel) any call runs under, whatever a tool's `max_output_bytes` says */
  maxOutputBytes: number;
  /** shell tools and the embedded gatekeeper are confined to it */
  workspaceRoot: string;
  shell: { inheritEnv: string[] };
  /** `auto`: isolate local tools with bubblewrap where it runs, warn where it does not; `required`: refuse to run them without it */
  sandbox: SandboxMode;
  /** more paths no local tool may see (`sandbox.hide`: an EnvironmentFile, a key), absolute */
  sandboxHide: string[];
  /** the most a tool definition's `sandbox:` block may ask for (`sandbox.ceiling`); absent: no ceiling */
  sandboxCeiling?: SandboxCeiling;
  /** who a root gateway's local tools run as (`sandbox.run_as`, `HLDP_SANDBOX_RUN_AS`): a user's name or {uid, gid}; absent: nobody */
  sandboxRunAs?: string | { uid: number; gid: number };
  embeddedGatekeeper: { enabled: boolean };
  /**
   * the console: whether its sign-in cookie is `Secure` (resolved from `console.secure_cookies`, `auto` by the listen host),
   * and whether only through the public URL (`auto` on loopback with an https `listen.public_url`: review Z7, Z7-5)
   */
  console: { secureCookies: boolean; plainOnLoopback?: boolean };
  gatekeepers: Record<string, GatekeeperTarget>;
  apis: Record<string, ApiTarget>;
  forgejo?: ForgejoConfig;
  /** the MCP servers `mcp` tools call, by name */
  mcpServers: Record<string, McpServerConfig>;
  sessions: SessionsConfig;
  /** the optional model stage of intent matching (`matcher.model`); absent: lexical only */
  matcherModel?: ModelStageOptions;
  /** the event stream: its backlog (events kept for Last-Event-ID; default 10,000) and how webhooks retry */
  events: { backlog?: number; notifyAttempts?: number; notifyBackoffMs?: number };
  /** outgoing webhooks: who hears of which events (secrets included) */
  notify: NotifyTarget[];
  logLevel: LogLevel;
  /** the file it was read from, if any */
  file?: string;
}

/** pino's levels, which `log_level` and `HLDP_LOG_LEVEL` may name. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** One of `LOG_LEVELS`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One outgoing webhook: its URL, the event types it is sent, and the secret its body is signed with. */
export interface NotifyTarget {
  url: string;
  /** event types, `failures` standing for every failure type */
  events: string[];
  secret?: string;
}

/** Command-line flags that override the file and the environment. */
export interface ConfigOverrides {
  repo?: string;
  ref?: string;
  token?: string;
  host?: string;
  port?: number;
  receiptsDb?: string;
}

/** A configuration that cannot be used: names the key and the reason, and stops the gateway at start. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';

  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`${key}: ${reason}`);
  }
}
