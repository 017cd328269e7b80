import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { parseByteSize, type DeclaredSandbox } from '../core/index.js';
import { DEFAULT_IDLE_MS, DEFAULT_STARTUP_TIMEOUT_MS, type McpServerConfig } from '../mcp-servers/index.js';
import { MissingSecretError, orLeftOut, type LeftOut } from './missing-secret.js';
import { ConfigError } from './gateway-config.js';

/** One entry of `mcp_servers` as written in YAML. */
export interface McpServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  token?: string;
  headers?: Record<string, string>;
  idle_ms?: number;
  startup_timeout_ms?: number;
  sandbox?: {
    network?: boolean;
    unix_sockets?: boolean;
    filesystem?: { read?: string[]; write?: string[] };
    limits?: { memory?: number | string; cpu_seconds?: number; processes?: number; file_size?: number | string };
  };
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The environment variable of a server's token: `HLDP_MCP_<NAME>_TOKEN`. */
export function mcpTokenVariable(name: string): string {
  return `HLDP_MCP_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`;
}

/**
 * `mcp_servers` of the config file, resolved: secrets come from the environment — a stdio server's `env` values
 * may name gateway variables as `${NAME}` (a variable that is not set stops the start), an HTTP server's token is
 * `token` or `HLDP_MCP_<NAME>_TOKEN`. Everything taken from the environment is a secret no receipt may show.
 */
export function mcpServersConfig(written: Record<string, McpServerEntry> | undefined, env: NodeJS.ProcessEnv, base: string, leftOut?: LeftOut[]): Record<string, McpServerConfig> {
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(written ?? {})) {
    const server = orLeftOut(leftOut, () => serverConfig(name, entry, env, base));
    if (server !== undefined) servers[name] = server;
  }
  return servers;
}

// one entry of `mcp_servers`; a `${VAR}` not in the environment is a MissingSecretError
function serverConfig(name: string, entry: McpServerEntry, env: NodeJS.ProcessEnv, base: string): McpServerConfig {
  const shared = { idleMs: entry.idle_ms ?? DEFAULT_IDLE_MS, startupTimeoutMs: entry.startup_timeout_ms ?? DEFAULT_STARTUP_TIMEOUT_MS };
  if (entry.url !== undefined) {
    refuseCredentials(name, entry.url);
    const token = env[mcpTokenVariable(name)] ?? entry.token;
    return {
      transport: 'http', url: entry.url, headers: entry.headers ?? {}, ...(token ? { token } : {}), ...shared,
      secrets: [...(token ? [token] : []), ...Object.values(entry.headers ?? {})],
    };
  }
  if (entry.command === undefined) throw new ConfigError(`mcp_servers.${name}`, 'needs either command (a stdio server) or url (Streamable HTTP)');
  const secrets: string[] = [];
  const serverEnv: Record<string, string> = {};
  for (const [variable, value] of Object.entries(entry.env ?? {})) {
    serverEnv[variable] = value.replace(REFERENCE, (_reference, source: string) => {
      const found = env[source];
      if (found === undefined) throw new MissingSecretError(`mcp_servers.${name}.env.${variable}`, `refers to \${${source}}, which is not set in the gateway's environment; export it, or write the value`);
      secrets.push(found);
      return found;
    });
  }
  return {
    transport: 'stdio', command: entry.command, args: entry.args ?? [], env: serverEnv,
    ...(entry.cwd === undefined ? {} : { cwd: isAbsolute(entry.cwd) ? entry.cwd : resolve(base, entry.cwd) }),
    ...(entry.sandbox === undefined ? {} : { sandbox: declaredSandbox(name, entry.sandbox) }),
    ...shared, secrets,
  };
}

/**
 * A server's URL holds no `user:password@` (review Z13, Z13-4): Node's fetch refuses such a URL and quotes it whole in
 * its error, which became every call's receipt (the agent's answer, GET /v1/receipts, events) with the password in it,
 * while the call never reached the server. The secret goes in `token` or a header instead; the error names neither.
 */
function refuseCredentials(name: string, url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // not a URL: the connection says so (Node's 'Invalid URL' does not quote it); only credentials are refused here
    return;
  }
  if (parsed.username === '' && parsed.password === '') return;
  throw new ConfigError(
    `mcp_servers.${name}.url`,
    `holds a user or password (${parsed.protocol}//…@${parsed.host}), which is never sent (Node's fetch refuses such a URL) and would be quoted in every call's receipt; write the URL without it and give the secret as token (sent as Authorization: Bearer; or ${mcpTokenVariable(name)}) or under headers (e.g. Authorization: Basic …, from the environment)`,
  );
}

// a server's sandbox block as the sandbox reads a tool's: sizes in bytes
function declaredSandbox(name: string, written: NonNullable<McpServerEntry['sandbox']>): DeclaredSandbox {
  const limits: NonNullable<DeclaredSandbox['limits']> = {};
  for (const key of ['memory', 'file_size'] as const) {
    const value = written.limits?.[key];
    if (value === undefined) continue;
    const bytes = parseByteSize(value);
    if (bytes === undefined) throw new ConfigError(`mcp_servers.${name}.sandbox.limits.${key}`, `'${String(value)}' is not a size; write bytes, or a size such as 512MiB or 1GiB`);
    limits[key] = bytes;
  }
  if (written.limits?.cpu_seconds !== undefined) limits.cpu_seconds = written.limits.cpu_seconds;
  if (written.limits?.processes !== undefined) limits.processes = written.limits.processes;
  return {
    ...(written.network === undefined ? {} : { network: written.network }),
    ...(written.unix_sockets === undefined ? {} : { unix_sockets: written.unix_sockets }),
    ...(written.filesystem === undefined ? {} : { filesystem: written.filesystem }),
    ...(Object.keys(limits).length ? { limits } : {}),
  };
}

/**
 * Refuses a stdio server's configured `cwd` inside the workspace or the registry's checkout (review S, S3): npx runs
 * a package found in its working folder's node_modules first, `python -m` imports from it, so whoever may write
 * there — any tool, in the workspace; anyone who pushes, in the checkout — would choose the code that runs in the
 * server's place, with its secrets, its network and every later call. Throws `ConfigError` naming the key.
 */
export function checkServerFolders(servers: Record<string, McpServerConfig>, places: Array<{ path: string; what: string }>): void {
  for (const [name, server] of Object.entries(servers)) {
    if (server.transport !== 'stdio' || server.cwd === undefined) continue;
    const cwd = realOrGiven(server.cwd);
    for (const place of places) {
      for (const root of new Set([resolve(place.path), realOrGiven(place.path)])) {
        const inside = relative(root, cwd);
        if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
          throw new ConfigError(`mcp_servers.${name}.cwd`, `'${server.cwd}' is inside ${place.what} ${root}, which others may write: npx, python -m and a relative script would run what they put there in the server's place, with its secrets and network. Leave cwd out (the server then runs in a folder of the gateway's own, <data_dir>/mcp-servers/${name}), or name a folder only the operator writes; give the server the workspace as an argument and under sandbox.filesystem if it needs it`);
        }
      }
    }
  }
}

// a path with its symlinks resolved as far as it exists
function realOrGiven(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
