import type { ForgejoConfig } from '../executors/index.js';
import type { ModelStageOptions } from '../matcher/index.js';
import { API_TOKEN_PRINCIPAL, hashToken, type PrincipalConfig } from '../policy/index.js';
import type { ConfigFile } from './config-file.js';
import { defined, integerFromEnv, isUrl, shownUrl, variable } from './config-values.js';
import { ConfigError, type GatewayConfig } from './gateway-config.js';
import { MissingSecretError, orLeftOut, type LeftOut } from './missing-secret.js';

/**
 * The configured principals, each token as a SHA-256 digest: `token_sha256` from the file, or the token from
 * `HLDP_PRINCIPAL_<NAME>_TOKEN` (hashed here; kept in clear only in `principalTokens`, for redaction). `api_token`
 * is one more principal, `admin`, with role admin. A principal with neither stops the load, unless `tokensOptional`
 * (a command that authenticates no one): then it is left out, so that an operator's shell need not hold every
 * agent's secret to read receipts or validate (review userV, V8).
 */
export function principalsOf(written: ConfigFile['principals'], env: NodeJS.ProcessEnv, apiToken: string | undefined, tokensOptional = false): Pick<GatewayConfig, 'principals' | 'principalTokens' | 'principalsLeftOut'> {
  const principals: PrincipalConfig[] = [];
  const principalTokens: string[] = [];
  const principalsLeftOut: NonNullable<GatewayConfig['principalsLeftOut']> = [];
  for (const [name, entry] of Object.entries(written ?? {})) {
    const key = `principals.${name}`;
    if (name === 'local') throw new ConfigError(key, "'local' is the operator at this machine (the CLI); give this principal another name");
    if (name === API_TOKEN_PRINCIPAL && apiToken !== undefined) throw new ConfigError(key, `'${API_TOKEN_PRINCIPAL}' is the principal api_token stands for; name this one otherwise, or drop api_token`);
    const variable = principalTokenVariable(name);
    const token = env[variable];
    if (token !== undefined && token.length < 16) throw new ConfigError(variable, 'must be at least 16 characters');
    if (token === undefined && entry.token_sha256 === undefined && tokensOptional) {
      principalsLeftOut.push({ name, roles: entry.roles });
      continue;
    }
    if (token === undefined && entry.token_sha256 === undefined) throw new ConfigError(key, `needs a token: token_sha256 (the SHA-256 of the token, hex) in the file, or the token in ${variable}`);
    if (token !== undefined) principalTokens.push(token);
    principals.push({ name, roles: entry.roles, tokenSha256: token !== undefined ? hashToken(token) : entry.token_sha256!.toLowerCase(), ...(entry.tools ? { tools: entry.tools } : {}) });
  }
  if (apiToken !== undefined) principals.push({ name: API_TOKEN_PRINCIPAL, roles: ['admin'], tokenSha256: hashToken(apiToken) });
  const seen = new Map<string, string>();
  for (const principal of principals) {
    const other = seen.get(principal.tokenSha256);
    if (other !== undefined) throw new ConfigError(`principals.${principal.name}`, sameToken(principal.name, other, env));
    seen.set(principal.tokenSha256, principal.name);
  }
  return { principals, principalTokens, ...(principalsLeftOut.length ? { principalsLeftOut } : {}) };
}

/** The variable that holds a principal's token: its name in capitals, each character but a letter or digit an `_`. */
export function principalTokenVariable(name: string): string {
  return `HLDP_PRINCIPAL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`;
}

/**
 * Why two principals have one token. Two names that differ only where the variable has an `_` (`ci-bot`, `ci_bot`)
 * both read one variable: "the same token" blamed an operator who had set one token once (review userZ4, F10).
 */
function sameToken(name: string, other: string, env: NodeJS.ProcessEnv): string {
  const variable = principalTokenVariable(name);
  if (other !== API_TOKEN_PRINCIPAL && variable === principalTokenVariable(other) && env[variable] !== undefined) {
    return `'${other}' and '${name}' both read their token from ${variable} (every character of a name but a letter or digit becomes '_'), so they got one token; rename one of them (its token then comes from its own variable)`;
  }
  return `has the same token as '${other}'; every principal needs a token of its own`;
}

/**
 * Named targets from the file, with `default` and every declared name completed from `HLDP_<KIND>_<NAME>_URL|TOKEN`;
 * with `leftOut`, one whose `build` misses a secret is recorded there instead of stopping the load.
 */
export function targets<T>(
  written: Record<string, { url?: string; token?: string; headers?: Record<string, string> }> | undefined,
  env: NodeJS.ProcessEnv,
  kind: 'GATEKEEPER' | 'API',
  build: (name: string, url: string | undefined, token: string | undefined, headers: Record<string, string> | undefined) => T,
  leftOut?: LeftOut[],
): Record<string, T> {
  const names = new Set([...Object.keys(written ?? {}), 'default']);
  const result: Record<string, T> = {};
  for (const name of names) {
    const url = env[variable(kind, name, 'URL')] ?? written?.[name]?.url;
    const token = env[variable(kind, name, 'TOKEN')] ?? written?.[name]?.token;
    if (name === 'default' && !written?.default && !url && !token) continue;
    const target = orLeftOut(leftOut, () => build(name, url, token, written?.[name]?.headers));
    if (target !== undefined) result[name] = target;
  }
  return result;
}

/** A `retention` block as the store's policy: undefined when it bounds neither age nor rows; hourly unless `interval_ms` says otherwise. */
export function retentionConfig(written: { days?: number; max_rows?: number; interval_ms?: number } | undefined): GatewayConfig['receiptsRetention'] {
  if (!written || (written.days === undefined && written.max_rows === undefined)) return undefined;
  return { ...defined('days', written.days), ...defined('maxRows', written.max_rows), intervalMs: written.interval_ms ?? 60 * 60_000 };
}

/** One `notify` entry, its secret read from the file or from the variable `secret_env` names. */
export function notifyTarget(written: NonNullable<ConfigFile['notify']>[number], index: number, env: NodeJS.ProcessEnv): GatewayConfig['notify'][number] {
  const secret = written.secret_env ? env[written.secret_env] : written.secret;
  if (written.secret_env && !secret) throw new MissingSecretError(`notify[${index}].secret_env`, `the environment variable ${written.secret_env} is not set`);
  if (secret !== undefined && secret.length < 8) throw new ConfigError(`notify[${index}]`, 'the secret must be at least 8 characters');
  return { url: written.url, events: written.events ?? ['failures', 'approval.requested'], ...defined('secret', secret) };
}

/** The Forgejo the git-forgejo executor talks to (`HLDP_FORGEJO_*` win), or undefined when none is configured. */
export function forgejoConfig(written: ConfigFile['forgejo'], env: NodeJS.ProcessEnv): ForgejoConfig | undefined {
  const url = env.HLDP_FORGEJO_URL ?? written?.url;
  const token = env.HLDP_FORGEJO_TOKEN ?? written?.token;
  const repo = env.HLDP_FORGEJO_REPO ?? written?.repo;
  if (!url && !token && !repo) return undefined;
  if (!url || !token) throw new MissingSecretError('forgejo', 'needs both url and token (or HLDP_FORGEJO_URL and HLDP_FORGEJO_TOKEN)');
  return { url, token, ...defined('repo', repo), ...defined('author', written?.author) };
}

/** The model stage of the matcher (`HLDP_MATCHER_MODEL*` win), or undefined when none is configured. */
export function matcherModelConfig(written: NonNullable<ConfigFile['matcher']>['model'], env: NodeJS.ProcessEnv): ModelStageOptions | undefined {
  const url = env.HLDP_MATCHER_MODEL_URL || written?.url;
  const model = env.HLDP_MATCHER_MODEL || written?.model;
  const token = env.HLDP_MATCHER_MODEL_TOKEN || written?.token;
  if (!url && !model) return undefined;
  if (!url || !model) throw new ConfigError('matcher.model', 'needs both url and model (or HLDP_MATCHER_MODEL_URL and HLDP_MATCHER_MODEL)');
  if (!isUrl(url)) throw new ConfigError(env.HLDP_MATCHER_MODEL_URL ? 'HLDP_MATCHER_MODEL_URL' : 'matcher.model.url', `must be an http(s) URL, got '${shownUrl(url)}'`);
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
