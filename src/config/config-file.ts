import { readFileSync } from 'node:fs';
import type { Role } from '../core/index.js';
import { compileShapeChecker, countedDocument, documentJS, unknownTags, type ShapeChecker } from '../scanner/index.js';
import { ConfigError, type GatewayConfig } from './gateway-config.js';
import type { McpServerEntry } from './mcp-servers-config.js';
import { CONFIG_SCHEMA_URL } from './package-root.js';
import type { WrittenSandbox } from './sandbox-config.js';

/** The config as written in YAML (snake_case), after schema validation. */
export interface ConfigFile {
  repository?: { source?: string; ref?: string; token?: string; poll_interval_ms?: number; max_definition_bytes?: number };
  cache_dir?: string;
  data_dir?: string;
  receipts_db?: string;
  store?: { url?: string; pool_max?: number };
  receipts?: { retention?: { days?: number; max_rows?: number; interval_ms?: number } };
  approvals?: { retention?: { days?: number; max_rows?: number; interval_ms?: number }; max_pending_per_caller?: number; run_lease_ms?: number };
  rejections?: { retention?: { days?: number; max_rows?: number; interval_ms?: number } };
  listen?: { host?: string; port?: number; public_url?: string; max_connections?: number };
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

let checker: ShapeChecker | undefined;

/** Reads and checks the config file against its schema; a `ConfigError` names `file:line:col` of the first problem. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, `cannot read the config file: ${(error as Error).message}`);
  }
  // the core schema's tags only, as definitions are read (review R, R13): `!!js/function "…"` was taken as the string
  // inside; and its values and nesting counted first, as a definition's are: a 660 KB config of 330,000 values was
  // built whole (~3.4 s of CPU, ~410 MB) before its schema refused it (sig27)
  const counted = countedDocument(text);
  if ('refused' in counted) throw new ConfigError(`${path}:${counted.refused.line}:1`, counted.refused.message);
  const { document, locator } = counted;
  const [syntax] = document.errors;
  if (syntax) {
    const { line, column } = locator.at(syntax.pos[0]);
    throw new ConfigError(`${path}:${line}:${column}`, syntax.message.split('\n')[0]!);
  }
  const [tag] = unknownTags(document, text, 'the config');
  if (tag) {
    const { line, column } = locator.at(tag.offset);
    throw new ConfigError(`${path}:${line}:${column}`, tag.message);
  }
  let value: unknown;
  try {
    value = documentJS(document) ?? {};
  } catch {
    throw new ConfigError(path, 'its YAML aliases expand too far; write the values out');
  }
  checker ??= compileShapeChecker(JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as object, 'the config', { ownSchema: true });
  // every problem of the file at once, one a line: an operator fixed one unknown key a restart (review userZ6, F7)
  const problems = checker(value).map((problem) => ({ at: locator.locate(problem.path, problem.atKey), message: problem.message }));
  if (problems.length > 0) {
    const [first, ...more] = problems;
    throw new ConfigError(`${path}:${first!.at.line}:${first!.at.column}`, [first!.message, ...more.map(({ at, message }) => `${path}:${at.line}:${at.column}: ${message}`)].join('\n'));
  }
  return value as ConfigFile;
}

/**
 * The file's `file:line:col` of a setting a later check refused (`principals.bob`: a principal with no token), or
 * undefined when the file does not write it (an environment variable's name, a default): README promises the place
 * of a bad key, and "principals.bob: needs a token" had none (review userZ6, F7). Read again only on that error.
 */
export function placeOfKey(path: string, key: string): string | undefined {
  if (!/^[a-z_]+(\.|$)/.test(key)) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const counted = countedDocument(text);
  if ('refused' in counted) return undefined;
  const { document, locator } = counted;
  const top = key.split('.')[0]!;
  if (!document.has(top)) return undefined;
  const { line, column } = locator.locate(key.split('.'), true);
  return `${path}:${line}:${column}`;
}
