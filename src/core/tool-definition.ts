import type { AccessGate } from './access.js';
import type { DeclaredSandbox } from './tool-sandbox.js';

/** The executors a tool may name; `hlpd-api` (the spec's other spelling) is read as `hldp-api`. */
export const EXECUTOR_NAMES = ['shell', 'gatekeeper', 'hldp-api', 'git-forgejo', 'mcp'] as const;

/** One of the ways a tool runs. */
export type ExecutorName = (typeof EXECUTOR_NAMES)[number];

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

/** Spec §3: a tool runs at most 30 s unless its definition says otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The output cap when a definition sets none (the spec's own example value). */
export const DEFAULT_MAX_OUTPUT_BYTES = 65_536;

/** Execution constraints, with defaults filled in. */
export interface ToolConstraints {
  timeout_ms: number;
  /** the longest deadline a call may ask for (`timeout_ms` in the call); absent: `timeout_ms` */
  max_timeout_ms?: number;
  max_output_bytes: number;
  require_confirm: boolean;
}

/** One argv element: a string template, or a group included only when all its placeholders have values. */
export type ArgvTemplate = Array<string | string[]>;

/** How a `shell` tool runs: exactly one of `argv` (no shell) or `script` (`sh -c`, params as environment). */
export interface ShellSpec {
  /** argv template; or, with `select`, one template per value of the selecting parameter. */
  argv?: ArgvTemplate | Record<string, ArgvTemplate>;
  /** the parameter whose value picks the argv template */
  select?: string;
  /** a fixed script for `sh -c`; parameters reach it only as environment variables `HLDP_PARAM_<NAME>` */
  script?: string;
  /** extra environment for the child (values may use placeholders) */
  env?: Record<string, string>;
  /** working directory template, relative to the configured root */
  cwd?: string;
  /** `json`: the validated params arrive as one JSON document on standard input (otherwise stdin is closed) */
  stdin?: 'json';
  /** exit codes besides 0 that are an answer, not a failure (grep's 1: no match); the receipt keeps the code itself */
  ok_exit_codes?: number[];
}

/** Which configured gatekeeper a `gatekeeper` tool runs on. */
export interface GatekeeperSpec {
  target?: string;
}

/** How an `hldp-api` tool builds its HTTP request. */
export interface HttpSpec {
  /** configured API name (default `default`) */
  api?: string;
  /** HTTP method, or a `{param}` placeholder */
  method?: string;
  /** path template: `{p}` is percent-encoded (never `.` or `..`), `{+p}` keeps `/` (never a `.` or `..` segment) */
  path: string;
  /** parameters sent in the query string (an object-valued parameter contributes each key) */
  query?: string[];
  /** parameter names sent as one JSON object, or `{param}`: that parameter's value is the whole body */
  body?: string[] | string;
  /** extra request headers (values may use placeholders) */
  headers?: Record<string, string>;
}

/** Which Forgejo repository a `git-forgejo` tool acts on. */
export interface ForgejoSpec {
  /** `owner/name`; default from config */
  repo?: string;
}

/** Which tool of which configured MCP server an `mcp` tool calls. */
export interface McpSpec {
  /** a name under `mcp_servers` in the gateway config */
  server: string;
  /** the tool's name as the server lists it (any characters the server uses) */
  tool: string;
  /** a second run of the same call is safe (the server's `idempotentHint` or `readOnlyHint`): only then is a call retried after the server died mid-call */
  idempotent?: boolean;
}

/** Where a definition came from in the repository. */
export interface ToolSource {
  /** path inside the repository, e.g. `tools/git-ops/TOOL.hdlp` */
  path: string;
  /** git object id of the tool's folder (tree) or, for a plain folder, of its file contents */
  oid: string;
}

/** A validated, normalised `TOOL.hdlp`: what every other folder speaks. */
export interface ToolDefinition {
  name: string;
  display: string;
  intent: string;
  method: string;
  executor: ExecutorName;
  /** a real JSON Schema object (`type: object`), turned from the shorthand when needed; the scanner checked it against JSON Schema 2020-12's meta-schema, and the params validator does not check it again */
  params_schema: JsonSchema;
  constraints: ToolConstraints;
  author: string;
  created: string;
  why: string;
  aliases: string[];
  examples: string[];
  group?: string;
  /** callable by name but never advertised (a renamed tool's old name kept for replays): Hidden to every session */
  unlisted?: boolean;
  /** who may see and run it (an identity gate, seed 003); absent: every caller that may call tools */
  access?: AccessGate;
  output_schema?: JsonSchema;
  shell?: ShellSpec;
  gatekeeper?: GatekeeperSpec;
  http?: HttpSpec;
  forgejo?: ForgejoSpec;
  mcp?: McpSpec;
  /** how its local processes are isolated and limited, as declared; see `resolveToolSandbox` */
  sandbox?: DeclaredSandbox;
  source: ToolSource;
}
