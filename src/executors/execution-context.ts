import type { ErrorCode, ProgressUpdate } from '../core/index.js';
import type { Sandbox } from '../sandbox/index.js';

/** Where `shell` tools run. */
export interface ShellConfig {
  /** every working directory is confined to this folder; the sandbox lets tools write it */
  root: string;
  /** the host's sandbox; without one, a tool still runs in a PID namespace of its own, unisolated and unlimited */
  sandbox?: Sandbox;
  /** names of extra variables the child may inherit from the gateway, beyond PATH, HOME, LANG, LC_*, TZ, TMPDIR */
  inheritEnv?: string[];
}

/** A named gatekeeper: `POST <url>/exec` with `Authorization: Bearer <token>`. */
export interface GatekeeperTarget {
  url: string;
  token: string;
}

/** A named HTTP API for `hldp-api` tools. */
export interface ApiTarget {
  /** base URL; the definition's path is appended to it */
  url: string;
  /** sent as `Authorization: Bearer <token>` */
  token?: string;
  /** further headers of every request (e.g. a custom auth header); they win over the definition's */
  headers?: Record<string, string>;
}

/** The Forgejo instance `git-forgejo` tools act on. */
export interface ForgejoConfig {
  /** base URL of the instance, e.g. `https://forgejo.example`; `/api/v1` is appended */
  url: string;
  /** personal access token, sent as `Authorization: token <PAT>` */
  token: string;
  /** default `owner/name`; a definition's `forgejo.repo` wins */
  repo?: string;
  /** author of commits made by `write_file`; Forgejo uses the token's user when absent */
  author?: { name: string; email: string };
  /**
   * the source of the registry this gateway serves (`repository.source`): `write_file` refuses to commit to it, so an
   * agent never rewrites its own tools and policies (set by the gateway, not the config file)
   */
  registry?: string;
}

/** A tool result as an MCP server returned it: what an `mcp` tool's receipt is made of. */
export interface McpToolAnswer {
  /** content blocks: `text` ones are the raw output, any other type is kept serialised */
  content: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** How one `mcp` call runs: aborting `signal` cancels it on the server (`notifications/cancelled`). */
export interface McpCallOptions {
  signal: AbortSignal;
  /** the call's deadline; `signal` fires at it, and the connection must not give up sooner */
  timeoutMs: number;
  /** the server's `notifications/progress` for this call */
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * the principal the call acts for: the server's stderr (where servers log the calls they serve, arguments and all) is
   * told in this call's outcome only when every call the server process served was this principal's (review S, S6)
   */
  caller?: string;
  /**
   * whether a second run of the call is safe (the tool declares `mcp.idempotent`): only then is a call whose server
   * died mid-call run again on a fresh one; otherwise it ends there, since it may or may not have run
   */
  idempotent?: boolean;
  /**
   * the most bytes the server's answer may take (an HTTP server's JSON answer, or one event of its stream) once its long
   * strings are cut (`answerCutter`): past it the call fails; tied to the tool's cap (`mcpAnswerBound`)
   */
  maxAnswerBytes?: number;
  /**
   * makes, for each attempt of the call, what cuts the long strings of an HTTP server's answer as it arrives (a
   * JsonStringCutter), so that an answer past `maxAnswerBytes` on the wire is read and cut, not failed
   */
  answerCutter?: () => { push(chunk: Uint8Array): Uint8Array };
}

/** What calling an MCP server came to: its answer, or why there is none (a JSON-RPC error, a server that will not start). */
export type McpCallOutcome =
  | { ok: true; answer: McpToolAnswer; notes?: string[] }
  | { ok: false; code: ErrorCode; message: string; notes?: string[]; /** the request never reached the server (it was still starting) */ unsent?: true };

/** The MCP servers behind the registry, as `mcp` tools reach them (the composition root owns their processes and connections). */
export interface McpServers {
  callTool(server: string, tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallOutcome>;
  /** why `server` is none of the configured ones (what a call of it would fail with), or undefined when it is one */
  unknownServer?(server: string): string | undefined;
}

/** What the executors need from the composition root for one call. Secrets live here and never in results. */
export interface ExecutionContext {
  shell?: ShellConfig;
  /** gatekeepers by name; a tool's `gatekeeper.target` picks one (default `default`) */
  gatekeepers?: Record<string, GatekeeperTarget>;
  /** APIs by name; a tool's `http.api` picks one (default `default`) */
  apis?: Record<string, ApiTarget>;
  forgejo?: ForgejoConfig;
  /** further secrets of the composition root that no result may show (a repository token, a webhook secret) */
  otherSecrets?: string[];
  /** the gateway's ceiling of every tool's `max_output_bytes` (config `max_output_bytes`): a tool's cap above it is cut to it */
  maxOutputBytes?: number;
  /** aborting it stops the call; the result then has code `CANCELLED` */
  signal?: AbortSignal;
  /** `mcp` tools: the configured servers */
  mcpServers?: McpServers;
  /** where a running call's progress goes (an MCP client's `tools/call`) */
  onProgress?: (update: ProgressUpdate) => void;
  /** the principal the call acts for: a shared MCP server's stderr goes only into receipts of the one it served (review S, S6) */
  caller?: string;
}

/** Every secret value in a context, so that results can be scrubbed of any echo of them. */
export function secretsOf(context: ExecutionContext): string[] {
  const secrets: string[] = [];
  for (const target of Object.values(context.gatekeepers ?? {})) secrets.push(target.token);
  for (const api of Object.values(context.apis ?? {})) {
    if (api.token) secrets.push(api.token);
    secrets.push(...Object.values(api.headers ?? {}));
  }
  if (context.forgejo?.token) secrets.push(context.forgejo.token);
  secrets.push(...(context.otherSecrets ?? []));
  return secrets;
}
