import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ApiTarget, ForgejoConfig, GatekeeperTarget } from '../executors/index.js';
import { runAsSettingProblem, SANDBOX_MODES, type SandboxMode } from '../sandbox/index.js';
import { compileShapeChecker, defaultCacheDir, MAX_DEFINITION_BYTES, YamlLocator, yamlModule, type RepositoryOptions, type ShapeChecker } from '../scanner/index.js';
import { API_TOKEN_PRINCIPAL, hashToken, type PrincipalConfig } from '../policy/index.js';
import { DEFAULT_SESSIONS_CONFIG } from '../sessions/index.js';
import type { ModelStageOptions } from '../matcher/index.js';
import { isLoopback, type Role } from '../core/index.js';
import { ConfigError, type ConfigOverrides, type GatewayConfig } from './gateway-config.js';
import { mcpServersConfig, type McpServerEntry } from './mcp-servers-config.js';
import { sandboxSettings, type WrittenSandbox } from './sandbox-config.js';
import { CONFIG_SCHEMA_URL, DEFAULT_REPOSITORY } from './package-root.js';

/** The config as written in YAML (snake_case), after schema validation. */
interface ConfigFile {
  repository?: { source?: string; ref?: string; token?: string; poll_interval_ms?: number; max_definition_bytes?: number };
  cache_dir?: string;
  data_dir?: string;
  receipts_db?: string;
  store?: { url?: string; pool_max?: number };
  receipts?: { retention?: { days?: number; max_rows?: number; interval_ms?: number } };
  approvals?: { retention?: { days?: number; max_rows?: number; interval_ms?: number }; max_pending_per_caller?: number; run_lease_ms?: number };
  rejections?: { retention?: { days?: number; max_rows?: number; interval_ms?: number } };
  listen?: { host?: string; port?: number };
  api_token?: string;
  principals?: Record<string, { roles: Role[]; token_sha256?: string; tools?: string[] }>;
  webhook_secret?: string;
  max_body_bytes?: number;
  confirmation_ttl_ms?: number;
  max_call_timeout_ms?: number;
  max_output_bytes?: number;
  max_calls_in_flight_per_caller?: number;
  workspace_root?: string;
  shell?: { inherit_env?: string[] };
  sandbox?: WrittenSandbox;
  embedded_gatekeeper?: { enabled?: boolean };
  console?: { secure_cookies?: boolean | 'auto' };
  gatekeepers?: Record<string, { url?: string; token?: string }>;
  apis?: Record<string, { url?: string; token?: string; headers?: Record<string, string> }>;
  forgejo?: { url?: string; token?: string; repo?: string; author?: { name: string; email: string } };
  mcp_servers?: Record<string, McpServerEntry>;
  sessions?: {
    toolset_ttl_ms?: number;
    max_sessions?: number;
    max_sessions_per_principal?: number;
    idle_ms?: number;
    deny?: string[];
    on_demand?: string[];
    reserved_calls?: 'enable' | 'run';
    group_descriptions?: Record<string, string>;
    store?: 'auto' | 'memory' | 'shared';
  };
  matcher?: { model?: { url?: string; model?: string; token?: string; timeout_ms?: number; budget_chars?: number; per_principal_per_minute?: number; max_concurrent?: number } };
  events?: { backlog?: number; notify_attempts?: number; notify_backoff_ms?: number };
  notify?: Array<{ url: string; events?: string[]; secret?: string; secret_env?: string }>;
  log_level?: GatewayConfig['logLevel'];
}

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

let checker: ShapeChecker | undefined;

/** Reads the config file (if any), then the environment, then flags; throws `ConfigError` naming the key and reason. */
export function loadConfig(options: { file?: string; overrides?: ConfigOverrides; env?: NodeJS.ProcessEnv } = {}): GatewayConfig {
  const env = options.env ?? process.env;
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
    },
    ...defined('apiToken', env.HLDP_API_TOKEN ?? written.api_token),
    ...principalsOf(written.principals, env, env.HLDP_API_TOKEN ?? written.api_token),
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
      if (!url || !token) throw new ConfigError(`gatekeepers.${name}`, `needs both url and token (or ${variable('GATEKEEPER', name, 'URL')} and ${variable('GATEKEEPER', name, 'TOKEN')})`);
      return { url, token } satisfies GatekeeperTarget;
    }),
    apis: targets(written.apis, env, 'API', (name, url, token, headers) => {
      if (!url) throw new ConfigError(`apis.${name}`, `needs a url (or ${variable('API', name, 'URL')})`);
      return { url, ...defined('token', token), ...defined('headers', headers) } satisfies ApiTarget;
    }),
    ...defined('forgejo', forgejoConfig(written.forgejo, env)),
    mcpServers: mcpServersConfig(written.mcp_servers, env, base),
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
    notify: (written.notify ?? []).map((target, index) => notifyTarget(target, index, env)),
    logLevel: (env.HLDP_LOG_LEVEL as GatewayConfig['logLevel'] | undefined) ?? written.log_level ?? 'info',
    ...defined('file', file ? resolve(file) : undefined),
  };
  config.console.secureCookies = secureCookies(env.HLDP_CONSOLE_SECURE_COOKIES ?? written.console?.secure_cookies ?? 'auto', config.listen.host);
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

function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, `cannot read the config file: ${(error as Error).message}`);
  }
  const { LineCounter, parseDocument } = yamlModule();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locator = new YamlLocator(document, lineCounter);
  const [syntax] = document.errors;
  if (syntax) {
    const { line, column } = locator.at(syntax.pos[0]);
    throw new ConfigError(`${path}:${line}:${column}`, syntax.message.split('\n')[0]!);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 }) ?? {};
  } catch {
    throw new ConfigError(path, 'its YAML aliases expand too far; write the values out');
  }
  checker ??= compileShapeChecker(JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as object, 'the config', { ownSchema: true });
  const [problem] = checker(value);
  if (problem) {
    const { line, column } = locator.locate(problem.path, problem.atKey);
    throw new ConfigError(`${path}:${line}:${column}`, problem.message);
  }
  return value as ConfigFile;
}

/**
 * The configured principals, each token as a SHA-256 digest: `token_sha256` from the file, or the token from
 * `HLDP_PRINCIPAL_<NAME>_TOKEN` (hashed here; kept in clear only in `principalTokens`, for redaction). `api_token`
 * is one more principal, `admin`, with role admin.
 */
function principalsOf(written: ConfigFile['principals'], env: NodeJS.ProcessEnv, apiToken: string | undefined): { principals: PrincipalConfig[]; principalTokens: string[] } {
  const principals: PrincipalConfig[] = [];
  const principalTokens: string[] = [];
  for (const [name, entry] of Object.entries(written ?? {})) {
    const key = `principals.${name}`;
    if (name === 'local') throw new ConfigError(key, "'local' is the operator at this machine (the CLI); give this principal another name");
    if (name === API_TOKEN_PRINCIPAL && apiToken !== undefined) throw new ConfigError(key, `'${API_TOKEN_PRINCIPAL}' is the principal api_token stands for; name this one otherwise, or drop api_token`);
    const variable = `HLDP_PRINCIPAL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`;
    const token = env[variable];
    if (token !== undefined && token.length < 16) throw new ConfigError(variable, 'must be at least 16 characters');
    if (token === undefined && entry.token_sha256 === undefined) throw new ConfigError(key, `needs a token: token_sha256 (the SHA-256 of the token, hex) in the file, or the token in ${variable}`);
    if (token !== undefined) principalTokens.push(token);
    principals.push({ name, roles: entry.roles, tokenSha256: token !== undefined ? hashToken(token) : entry.token_sha256!.toLowerCase(), ...(entry.tools ? { tools: entry.tools } : {}) });
  }
  if (apiToken !== undefined) principals.push({ name: API_TOKEN_PRINCIPAL, roles: ['admin'], tokenSha256: hashToken(apiToken) });
  const seen = new Map<string, string>();
  for (const principal of principals) {
    const other = seen.get(principal.tokenSha256);
    if (other !== undefined) throw new ConfigError(`principals.${principal.name}`, `has the same token as '${other}'; every principal needs a token of its own`);
    seen.set(principal.tokenSha256, principal.name);
  }
  return { principals, principalTokens };
}

/** What the scanner needs of the config. */
export function repositoryOptions(config: GatewayConfig): RepositoryOptions {
  const { source, ref, token, maxDefinitionBytes } = config.repository;
  return { repo: source, cacheDir: config.cacheDir, maxDefinitionBytes, ...defined('ref', ref), ...defined('token', token) };
}

/** Named targets from the file, with `default` and every declared name completed from `HLDP_<KIND>_<NAME>_URL|TOKEN`. */
function targets<T>(
  written: Record<string, { url?: string; token?: string; headers?: Record<string, string> }> | undefined,
  env: NodeJS.ProcessEnv,
  kind: 'GATEKEEPER' | 'API',
  build: (name: string, url: string | undefined, token: string | undefined, headers: Record<string, string> | undefined) => T,
): Record<string, T> {
  const names = new Set([...Object.keys(written ?? {}), 'default']);
  const result: Record<string, T> = {};
  for (const name of names) {
    const url = env[variable(kind, name, 'URL')] ?? written?.[name]?.url;
    const token = env[variable(kind, name, 'TOKEN')] ?? written?.[name]?.token;
    if (name === 'default' && !written?.default && !url && !token) continue;
    result[name] = build(name, url, token, written?.[name]?.headers);
  }
  return result;
}

function retentionConfig(written: { days?: number; max_rows?: number; interval_ms?: number } | undefined): GatewayConfig['receiptsRetention'] {
  if (!written || (written.days === undefined && written.max_rows === undefined)) return undefined;
  return { ...defined('days', written.days), ...defined('maxRows', written.max_rows), intervalMs: written.interval_ms ?? 60 * 60_000 };
}

function notifyTarget(written: NonNullable<ConfigFile['notify']>[number], index: number, env: NodeJS.ProcessEnv): GatewayConfig['notify'][number] {
  const secret = written.secret_env ? env[written.secret_env] : written.secret;
  if (written.secret_env && !secret) throw new ConfigError(`notify[${index}].secret_env`, `the environment variable ${written.secret_env} is not set`);
  if (secret !== undefined && secret.length < 8) throw new ConfigError(`notify[${index}]`, 'the secret must be at least 8 characters');
  return { url: written.url, events: written.events ?? ['failures', 'approval.requested'], ...defined('secret', secret) };
}

function forgejoConfig(written: ConfigFile['forgejo'], env: NodeJS.ProcessEnv): ForgejoConfig | undefined {
  const url = env.HLDP_FORGEJO_URL ?? written?.url;
  const token = env.HLDP_FORGEJO_TOKEN ?? written?.token;
  const repo = env.HLDP_FORGEJO_REPO ?? written?.repo;
  if (!url && !token && !repo) return undefined;
  if (!url || !token) throw new ConfigError('forgejo', 'needs both url and token (or HLDP_FORGEJO_URL and HLDP_FORGEJO_TOKEN)');
  return { url, token, ...defined('repo', repo), ...defined('author', written?.author) };
}

function matcherModelConfig(written: NonNullable<ConfigFile['matcher']>['model'], env: NodeJS.ProcessEnv): ModelStageOptions | undefined {
  const url = env.HLDP_MATCHER_MODEL_URL || written?.url;
  const model = env.HLDP_MATCHER_MODEL || written?.model;
  const token = env.HLDP_MATCHER_MODEL_TOKEN || written?.token;
  if (!url && !model) return undefined;
  if (!url || !model) throw new ConfigError('matcher.model', 'needs both url and model (or HLDP_MATCHER_MODEL_URL and HLDP_MATCHER_MODEL)');
  if (!isUrl(url)) throw new ConfigError('matcher.model.url', `must be an http(s) URL, got '${url}'`);
  const timeoutMs = integerFromEnv(env, 'HLDP_MATCHER_MODEL_TIMEOUT_MS', 120_000) ?? written?.timeout_ms;
  if (timeoutMs !== undefined && timeoutMs < 100) throw new ConfigError('HLDP_MATCHER_MODEL_TIMEOUT_MS', `must be at least 100 ms, got ${timeoutMs}`);
  const perPrincipalPerMinute = written?.per_principal_per_minute;
  if (perPrincipalPerMinute !== undefined && !(Number.isInteger(perPrincipalPerMinute) && perPrincipalPerMinute >= 1)) {
    throw new ConfigError('matcher.model.per_principal_per_minute', `must be a whole number of model requests of at least 1, got ${String(perPrincipalPerMinute)}`);
  }
  const maxConcurrent = written?.max_concurrent;
  if (maxConcurrent !== undefined && !(Number.isInteger(maxConcurrent) && maxConcurrent >= 1)) {
    throw new ConfigError('matcher.model.max_concurrent', `must be a whole number of requests of at least 1, got ${String(maxConcurrent)}`);
  }
  return {
    url, model, ...defined('token', token), ...defined('timeoutMs', timeoutMs), ...defined('budgetChars', written?.budget_chars),
    ...defined('perPrincipalPerMinute', perPrincipalPerMinute), ...defined('maxConcurrent', maxConcurrent),
  };
}

/** The environment variable of a named target's field, e.g. `HLDP_GATEKEEPER_BS_SG_001_TOKEN`. */
export function variable(kind: 'GATEKEEPER' | 'API', name: string, field: 'URL' | 'TOKEN'): string {
  return `HLDP_${kind}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${field}`;
}

/** `sandbox.run_as` (`HLDP_SANDBOX_RUN_AS` wins), refused here when it makes tools members of the group root. */
function runAsSetting(envValue: string | undefined, written: string | { uid: number; gid: number } | undefined): string | { uid: number; gid: number } | undefined {
  const setting = envValue || written;
  const problem = runAsSettingProblem(setting);
  if (problem !== undefined) throw new ConfigError(envValue ? 'HLDP_SANDBOX_RUN_AS' : 'sandbox.run_as', problem);
  return setting;
}

/** `HLDP_SANDBOX` as a mode; throws naming the modes when it is another word. */
export function sandboxMode(text: string | undefined, key = 'HLDP_SANDBOX'): SandboxMode | undefined {
  if (text === undefined || text === '') return undefined;
  if ((SANDBOX_MODES as readonly string[]).includes(text)) return text as SandboxMode;
  throw new ConfigError(key, `must be one of ${SANDBOX_MODES.join(', ')}, got '${text}'`);
}

function integerFromEnv(env: NodeJS.ProcessEnv, name: string, maximum: number): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text) || Number(text) > maximum) throw new ConfigError(name, `must be an integer from 0 to ${maximum}, got '${text}'`);
  return Number(text);
}

/** Where receipts, approvals and sessions are kept when no data folder is configured: one per user, shared by their gateways. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'brush-holder');
}

function expandHome(path: string): string {
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * Whether the console's sign-in cookie is `Secure`: as set, or (`auto`) whenever the gateway listens beyond loopback,
 * where it is meant to be reached over TLS (a proxy in front) and a cookie sent over plain http could be read on the way.
 */
function secureCookies(value: boolean | string, host: string): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  if (value === 'auto') return !isLoopback(host);
  throw new ConfigError('HLDP_CONSOLE_SECURE_COOKIES', `is '${value}'; use true, false or auto`);
}
