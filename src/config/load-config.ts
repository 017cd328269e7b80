import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isLoopback } from '../core/index.js';
import type { ApiTarget, GatekeeperTarget } from '../executors/index.js';
import { defaultCacheDir, MAX_DEFINITION_BYTES, type RepositoryOptions } from '../scanner/index.js';
import { DEFAULT_SESSIONS_CONFIG } from '../sessions/index.js';
import { withPolicyProblems } from '../policy/index.js';
import { placeOfKey, readConfigFile } from './config-file.js';
import { forgejoConfig, matcherModelConfig, notifyTarget, principalsOf, retentionConfig, targets } from './config-sections.js';
import { defined, expandHome, integerFromEnv, isUrl, logLevel, publicUrl, runAsSetting, sandboxMode, secureCookies, variable } from './config-values.js';
import { ConfigError, type ConfigOverrides, type GatewayConfig } from './gateway-config.js';
import { checkServerFolders, mcpServersConfig } from './mcp-servers-config.js';
import { sandboxSettings } from './sandbox-config.js';
import { DEFAULT_REPOSITORY } from './package-root.js';
import { MissingSecretError, orLeftOut, type LeftOut } from './missing-secret.js';

/** How many calls one caller may have running at once when none is configured (review K, K7). */
export const DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CALLER = 32;

/** How long an approved call's run is leased to its process unless renewed (approvals.run_lease_ms). */
export const DEFAULT_APPROVAL_RUN_LEASE_MS = 30_000;

/** The gateway-wide ceiling of every tool's `max_output_bytes` when none is configured: 16 MiB (review K, K6). */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** The highest ceiling that may be configured: stdout and stderr at that each stay well under V8's longest string. */
export const MAX_OUTPUT_BYTES_CEILING = 256 * 1024 * 1024;

/** The gateway-wide deadline ceiling when none is configured: an hour. */
export const DEFAULT_MAX_CALL_TIMEOUT_MS = 3_600_000;

/**
 * Reads the config file (if any), then the environment, then flags; throws `ConfigError` naming the key and reason.
 * `secrets: 'optional'` is for commands that authenticate no request and run no tool: a principal, gatekeeper, API,
 * Forgejo, MCP server or webhook whose secret is not at hand is left out (`principalsLeftOut`, `secretsLeftOut`)
 * rather than refused.
 */
export function loadConfig(options: LoadOptions = {}): GatewayConfig {
  const file = options.file ?? (options.env ?? process.env).HLDP_CONFIG;
  try {
    return loadConfigOnce(options);
  } catch (error) {
    // a setting of the file refused after its schema passed is said at its place in the file, as a bad key is
    const env = options.env ?? process.env;
    const place = file && error instanceof ConfigError && !/:\d+:\d+$/.test(error.key) && !setInEnvironment(env, error.key) ? placeOfKey(resolve(file), error.key) : undefined;
    throw place === undefined ? error : new ConfigError(place, (error as ConfigError).message);
  }
}

// whether an environment variable that overrides `key` is set (`max_output_bytes`: HLDP_MAX_OUTPUT_BYTES; `listen.port`:
// HLDP_PORT): the value refused is then the variable's, not the file's, whose place would send the operator to a
// line that is fine (review Z9, Z9-2)
function setInEnvironment(env: NodeJS.ProcessEnv, key: string): boolean {
  const parts = key.split('.');
  return [parts.join('_'), parts.at(-1)!].some((name) => (env[`HLDP_${name.toUpperCase()}`] ?? '') !== '');
}

/**
 * `secrets: 'optional'`: a target whose secret is not in this environment is left out (see `orLeftOut`). `delivers`:
 * this process sends the `notify` webhooks (`hldp serve`); any other leaves out a target whose secret it lacks, for it
 * never signs a delivery — an MCP client's line had to carry the webhook secret, or `hldp mcp` would not start
 * (review userZ11, U11-1).
 */
export interface LoadOptions {
  file?: string;
  overrides?: ConfigOverrides;
  env?: NodeJS.ProcessEnv;
  secrets?: 'required' | 'optional';
  delivers?: boolean;
}

function loadConfigOnce(options: LoadOptions): GatewayConfig {
  const env = options.env ?? process.env;
  const leftOut: LeftOut[] | undefined = options.secrets === 'optional' ? [] : undefined;
  const overrides = options.overrides ?? {};
  const file = options.file ?? env.HLDP_CONFIG;
  const written = file ? readConfigFile(resolve(file)) : {};
  const base = file ? dirname(resolve(file)) : process.cwd();
  const fromFile = (path: string | undefined): string | undefined => (path === undefined ? undefined : resolve(base, expandHome(path)));
  const fromEnv = (name: string): string | undefined => (env[name] ? resolve(expandHome(env[name]!)) : undefined);

  const sandbox = sandboxSettings(written.sandbox, base);
  const dataDir = fromEnv('HLDP_DATA_DIR') ?? fromFile(written.data_dir) ?? defaultDataDir(env);
  const source = overrides.repo ?? env.HLDP_REPO ?? written.repository?.source;
  const config: GatewayConfig = {
    repository: {
      source: source === undefined ? DEFAULT_REPOSITORY : isUrl(source) ? source : resolve(overrides.repo || env.HLDP_REPO ? process.cwd() : base, source),
      ...defined('ref', overrides.ref ?? env.HLDP_REPO_REF ?? written.repository?.ref),
      ...defined('token', overrides.token ?? env.HLDP_REPO_TOKEN ?? written.repository?.token),
      pollIntervalMs: integerFromEnv(env, 'HLDP_POLL_INTERVAL_MS', Number.MAX_SAFE_INTEGER) ?? written.repository?.poll_interval_ms ?? 60_000,
      maxDefinitionBytes: integerFromEnv(env, 'HLDP_MAX_DEFINITION_BYTES', 64 * 1024 * 1024) ?? written.repository?.max_definition_bytes ?? MAX_DEFINITION_BYTES,
    },
    ...defined('configFile', file ? resolve(file) : undefined),
    cacheDir: fromEnv('HLDP_CACHE_DIR') ?? fromFile(written.cache_dir) ?? defaultCacheDir(),
    dataDir,
    receiptsDb: (overrides.receiptsDb && resolve(overrides.receiptsDb)) ?? fromEnv('HLDP_RECEIPTS_DB') ?? fromFile(written.receipts_db) ?? join(dataDir, 'receipts.db'),
    store: { ...defined('url', env.HLDP_STORE_URL || written.store?.url), poolMax: written.store?.pool_max ?? 10 },
    ...defined('receiptsRetention', retentionConfig(written.receipts?.retention)),
    ...defined('approvalsRetention', retentionConfig(written.approvals?.retention)),
    ...defined('rejectionsRetention', retentionConfig(written.rejections?.retention)),
    listen: {
      host: overrides.host ?? env.HLDP_HOST ?? written.listen?.host ?? '127.0.0.1',
      port: overrides.port ?? integerFromEnv(env, 'HLDP_PORT', 65535) ?? written.listen?.port ?? 3900,
      // no bound unless one is set (0: none): a bound is a place anyone who reaches the port can take (review Z12, finding 1)
      maxConnections: (integerFromEnv(env, 'HLDP_MAX_CONNECTIONS', 1_000_000) ?? written.listen?.max_connections) || undefined,
      ...defined('publicUrl', publicUrl(env.HLDP_PUBLIC_URL === undefined ? written.listen?.public_url : env.HLDP_PUBLIC_URL, env.HLDP_PUBLIC_URL === undefined ? 'listen.public_url' : 'HLDP_PUBLIC_URL')),
    },
    ...defined('apiToken', env.HLDP_API_TOKEN ?? written.api_token),
    ...principalsOf(written.principals, env, env.HLDP_API_TOKEN ?? written.api_token, options.secrets === 'optional'),
    ...defined('webhookSecret', env.HLDP_WEBHOOK_SECRET ?? written.webhook_secret),
    maxBodyBytes: written.max_body_bytes ?? 1024 * 1024,
    confirmationTtlMs: written.confirmation_ttl_ms ?? 10 * 60_000,
    maxPendingPerCaller: Math.max(1, integerFromEnv(env, 'HLDP_MAX_PENDING_PER_CALLER', 100_000) ?? written.approvals?.max_pending_per_caller ?? 20),
    approvalRunLeaseMs: Math.max(1000, integerFromEnv(env, 'HLDP_APPROVAL_RUN_LEASE_MS', 86_400_000) ?? written.approvals?.run_lease_ms ?? DEFAULT_APPROVAL_RUN_LEASE_MS),
    maxCallTimeoutMs: integerFromEnv(env, 'HLDP_MAX_CALL_TIMEOUT_MS', 86_400_000) ?? written.max_call_timeout_ms ?? DEFAULT_MAX_CALL_TIMEOUT_MS,
    maxCallsInFlightPerCaller: Math.max(1, integerFromEnv(env, 'HLDP_MAX_CALLS_IN_FLIGHT_PER_CALLER', 1_000_000) ?? written.max_calls_in_flight_per_caller ?? DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CALLER),
    maxOutputBytes: integerFromEnv(env, 'HLDP_MAX_OUTPUT_BYTES', MAX_OUTPUT_BYTES_CEILING) ?? written.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    workspaceRoot: fromEnv('HLDP_WORKSPACE') ?? fromFile(written.workspace_root) ?? process.cwd(),
    shell: { inheritEnv: written.shell?.inherit_env ?? [] },
    sandbox: sandboxMode(env.HLDP_SANDBOX) ?? sandbox.mode ?? 'auto',
    sandboxHide: sandbox.hide,
    ...defined('sandboxCeiling', sandbox.ceiling),
    ...defined('sandboxRunAs', runAsSetting(env.HLDP_SANDBOX_RUN_AS, sandbox.runAs)),
    embeddedGatekeeper: { enabled: written.embedded_gatekeeper?.enabled ?? true },
    console: { secureCookies: false },
    gatekeepers: targets(written.gatekeepers, env, 'GATEKEEPER', (name, url, token) => {
      if (!url || !token) throw new MissingSecretError(`gatekeepers.${name}`, `needs both url and token (or ${variable('GATEKEEPER', name, 'URL')} and ${variable('GATEKEEPER', name, 'TOKEN')})`);
      return { url, token } satisfies GatekeeperTarget;
    }, leftOut),
    apis: targets(written.apis, env, 'API', (name, url, token, headers) => {
      if (!url) throw new MissingSecretError(`apis.${name}`, `needs a url (or ${variable('API', name, 'URL')})`);
      return { url, ...defined('token', token), ...defined('headers', headers) } satisfies ApiTarget;
    }, leftOut),
    ...defined('forgejo', orLeftOut(leftOut, () => forgejoConfig(written.forgejo, env))),
    mcpServers: mcpServersConfig(written.mcp_servers, env, base, leftOut),
    sessions: {
      toolsetTtlMs: written.sessions?.toolset_ttl_ms ?? DEFAULT_SESSIONS_CONFIG.toolsetTtlMs,
      maxSessions: written.sessions?.max_sessions ?? DEFAULT_SESSIONS_CONFIG.maxSessions,
      maxSessionsPerPrincipal: written.sessions?.max_sessions_per_principal ?? DEFAULT_SESSIONS_CONFIG.maxSessionsPerPrincipal,
      idleMs: written.sessions?.idle_ms ?? DEFAULT_SESSIONS_CONFIG.idleMs,
      deny: written.sessions?.deny ?? [],
      onDemand: written.sessions?.on_demand ?? [],
      reservedCalls: written.sessions?.reserved_calls ?? DEFAULT_SESSIONS_CONFIG.reservedCalls,
      groupDescriptions: written.sessions?.group_descriptions ?? {},
      store: written.sessions?.store ?? DEFAULT_SESSIONS_CONFIG.store,
    },
    ...defined('matcherModel', matcherModelConfig(written.matcher?.model, env)),
    events: { ...defined('backlog', written.events?.backlog), ...defined('notifyAttempts', written.events?.notify_attempts), ...defined('notifyBackoffMs', written.events?.notify_backoff_ms) },
    notify: (written.notify ?? []).flatMap((target, index) => orLeftOut(options.delivers ? leftOut : (leftOut ?? []), () => notifyTarget(target, index, env)) ?? []),
    logLevel: logLevel(env.HLDP_LOG_LEVEL) ?? written.log_level ?? 'info',
    ...defined('file', file ? resolve(file) : undefined),
  };
  if (leftOut?.length) config.secretsLeftOut = leftOut;
  const checkout = isUrl(config.repository.source) ? [] : [{ path: config.repository.source, what: "the tools registry's checkout" }];
  checkServerFolders(config.mcpServers, [{ path: config.workspaceRoot, what: 'the workspace' }, ...checkout]);
  const secureSetting = env.HLDP_CONSOLE_SECURE_COOKIES ?? written.console?.secure_cookies ?? 'auto';
  config.console.secureCookies = secureCookies(secureSetting, config.listen.host, config.listen.publicUrl);
  // Secure because of an https public_url alone: the operator's own browser at the loopback address gets the plain cookie
  if (secureSetting === 'auto' && config.console.secureCookies && isLoopback(config.listen.host)) config.console.plainOnLoopback = true;
  if (config.maxCallTimeoutMs < 1) throw new ConfigError('HLDP_MAX_CALL_TIMEOUT_MS', 'must be at least 1 (ms)');
  if (!Number.isInteger(config.maxOutputBytes) || config.maxOutputBytes < 64 || config.maxOutputBytes > MAX_OUTPUT_BYTES_CEILING) {
    throw new ConfigError('max_output_bytes', `must be an integer from 64 to ${MAX_OUTPUT_BYTES_CEILING} (bytes), got ${config.maxOutputBytes}`);
  }
  if (env.HLDP_API_TOKEN !== undefined && env.HLDP_API_TOKEN.length < 16) {
    throw new ConfigError('HLDP_API_TOKEN', 'must be at least 16 characters');
  }
  if (env.HLDP_STORE_URL && !/^postgres(ql)?:\/\//.test(env.HLDP_STORE_URL)) {
    throw new ConfigError('HLDP_STORE_URL', "must be a postgres:// (or postgresql://) URL, e.g. postgres://hldp:PASSWORD@db.example:5432/hldp; leave it unset for the SQLite file");
  }
  // the same floor as webhook_secret in the file: a short secret is guessed
  if (env.HLDP_WEBHOOK_SECRET !== undefined && env.HLDP_WEBHOOK_SECRET.length < 8) {
    throw new ConfigError('HLDP_WEBHOOK_SECRET', 'must be at least 8 characters');
  }
  return config;
}

/** What the scanner needs of the config. */
export function repositoryOptions(config: GatewayConfig): RepositoryOptions {
  const { source, ref, token, maxDefinitionBytes } = config.repository;
  // a policy refused for a condition no tool takes is among the index's errors, as a broken definition is (fixp24)
  return { repo: source, cacheDir: config.cacheDir, maxDefinitionBytes, ...defined('ref', ref), ...defined('token', token), judge: withPolicyProblems };
}

/** Where receipts, approvals and sessions are kept when no data folder is configured: one per user, shared by their gateways. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'brush-holder');
}

