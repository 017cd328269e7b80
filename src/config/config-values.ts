import { homedir } from 'node:os';
import { join } from 'node:path';
import { isLoopback } from '../core/index.js';
import { runAsSettingProblem, SANDBOX_MODES, type SandboxMode } from '../sandbox/index.js';
import { ConfigError, LOG_LEVELS, type LogLevel } from './gateway-config.js';

/** The environment variable of a named target's field, e.g. `HLDP_GATEKEEPER_BS_SG_001_TOKEN`. */
export function variable(kind: 'GATEKEEPER' | 'API', name: string, field: 'URL' | 'TOKEN'): string {
  return `HLDP_${kind}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${field}`;
}

/** `sandbox.run_as` (`HLDP_SANDBOX_RUN_AS` wins), refused here when it makes tools members of the group root. */
export function runAsSetting(envValue: string | undefined, written: string | { uid: number; gid: number } | undefined): string | { uid: number; gid: number } | undefined {
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

/** An environment variable as a whole number up to `maximum`; undefined when unset or empty, a `ConfigError` when it is anything else. */
export function integerFromEnv(env: NodeJS.ProcessEnv, name: string, maximum: number): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  return wholeNumber(text, name, maximum);
}

/** A whole number from 0 to `maximum` written as text (an environment variable, a flag such as `--port`); a `ConfigError` naming `key` otherwise. */
export function wholeNumber(text: string, key: string, maximum: number): number {
  if (!/^\d+$/.test(text) || Number(text) > maximum) throw new ConfigError(key, `must be an integer from 0 to ${maximum}, got '${text}'`);
  return Number(text);
}

/** `HLDP_LOG_LEVEL` as a level; throws naming the levels, as the config file's `log_level` is checked, when it is another word. */
export function logLevel(text: string | undefined, key = 'HLDP_LOG_LEVEL'): LogLevel | undefined {
  if (text === undefined || text === '') return undefined;
  if ((LOG_LEVELS as readonly string[]).includes(text)) return text as LogLevel;
  throw new ConfigError(key, `must be one of: ${LOG_LEVELS.join(', ')}, got '${text}'`);
}

/** A path with a leading `~/` read as the user's home folder. */
export function expandHome(path: string): string {
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

/**
 * A URL as a config error may print it: no user or password (a hosted endpoint's key is often written there), no
 * query, at most 200 characters; also when it is not a valid URL, since a mistyped scheme is the usual way a URL is
 * invalid (review Z10-3).
 */
export function shownUrl(value: string): string {
  const cut = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  try {
    const url = new URL(value);
    if (url.username) url.username = '***';
    if (url.password) url.password = '***';
    if (url.search) url.search = '?***';
    return cut(url.href);
  } catch {
    // everything up to the last '@' before the path is credentials; the query and fragment go too
    return cut(value.replace(/[?#].*$/s, '?***').replace(/^([a-z][a-z0-9+.-]*:\/*)?[^/]*@/is, '$1***@'));
  }
}

/** Whether a value is an http(s) URL. */
export function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/**
 * `listen.public_url` as a request names its instance by it: an http(s) URL with no credentials, query or fragment,
 * without its trailing slash (a path stays: a gateway behind a proxy at /hldp/). Absent when unset or empty; anything
 * else stops the start naming `setting`, since a decider's console links it (review Z3, Z3-5).
 */
export function publicUrl(value: string | undefined, setting: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(setting, `must be an http:// or https:// URL where people reach this instance (e.g. https://hldp-a.example), got '${shownUrl(value)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(setting, `must be an http:// or https:// URL, got the scheme '${url.protocol}'`);
  if (url.username || url.password || url.search || url.hash) throw new ConfigError(setting, 'must hold no user, password, query or fragment: it is shown to deciders and linked from the console');
  return url.href.replace(/\/+$/, '');
}

/** `{key: value}`, or nothing when the value is undefined: optional fields stay absent rather than undefined. */
export function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * Whether the console's sign-in cookie is `Secure`: as set, or (`auto`) whenever the gateway listens beyond loopback,
 * where it is meant to be reached over TLS (a proxy in front) and a cookie sent over plain http could be read on the way,
 * or its public URL (`listen.public_url`) is https, whatever it listens on (a TLS proxy on the same host; review userZ4, F12).
 */
export function secureCookies(value: boolean | string, host: string, publicUrl?: string): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  if (value === 'auto') return !isLoopback(host) || publicUrl?.startsWith('https:') === true;
  throw new ConfigError('HLDP_CONSOLE_SECURE_COOKIES', `is '${value}'; use true, false or auto`);
}
