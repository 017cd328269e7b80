/** A problem found in a `TOOL.hdlp`, `TOOLSET.hdlp` or `SKILL.md`, pointing at the exact place. */
export interface Diagnostic {
  /** path inside the repository (or on disk for `hldp validate`) */
  file: string;
  /** 1-based */
  line: number;
  /** 1-based */
  column: number;
  severity: 'error' | 'warning';
  /** SCREAMING_SNAKE class of the problem */
  code: DiagnosticCode;
  message: string;
}

/** Classes of definition problems. */
export type DiagnosticCode =
  | 'YAML_SYNTAX'
  /** an alias bomb, runaway nesting or too many values: refused before it costs memory or time */
  | 'YAML_RESOURCE_LIMIT'
  /** the file could not be read from its source (a corrupt object, a read error); the rest of the scan goes on */
  | 'READ_FAILED'
  /** checking the file failed unexpectedly: a bug, reported against this file only */
  | 'PARSE_FAILED'
  | 'SCHEMA_VIOLATION'
  | 'NAME_MISMATCH'
  /** a tool's name or alias is one the gateway keeps for its meta-tools (toolset, tool_find, …, confirm) */
  | 'RESERVED_NAME'
  /** two definitions claim one name (compared case-insensitively): the one not served, naming the one kept and why */
  | 'DUPLICATE_NAME'
  /** two folders of one kind differ only by case: a checkout on macOS or Windows holds one of them only (a warning) */
  | 'CASE_TWIN'
  | 'INVALID_PARAMS_SCHEMA'
  /** an `output_schema` that is not valid JSON Schema (it is served as the tool's reference, never checked against output) */
  | 'INVALID_OUTPUT_SCHEMA'
  /** a `shell.argv` template no value of the `shell.select` parameter picks: dead text (a warning) */
  /** a parameter of a `shell.argv` tool that no template, env value, cwd or select reads: a caller's value is ignored (a warning) */
  | 'UNUSED_PARAMETER'
  | 'UNUSED_TEMPLATE'
  /** a boolean parameter fills a whole `shell.argv` element: it becomes the text true/false, never an on/off flag (a warning) */
  | 'BOOLEAN_AS_ARGUMENT'
  | 'UNKNOWN_PLACEHOLDER'
  /** with the deployment's config: a gatekeeper.target, http.api or mcp.server it does not configure (review userW, W2) */
  | 'UNKNOWN_TARGET'
  /** a parameter fills an environment variable that is not a plain name or that a program runs or obeys */
  | 'UNSAFE_ENV_VARIABLE'
  /** an `http.headers` key a definition may not set: `host` (the API's URL picks it), a framing or hop-by-hop header (review Z4, F4) */
  | 'UNSAFE_HTTP_HEADER'
  /** a parameter's value could never be built into the command: the call would fail as EXECUTOR_MISCONFIGURED */
  | 'UNFILLABLE_TEMPLATE'
  /** a parameter's `default` its own schema refuses: every call leaving it out would fail (found by `hldp validate`) */
  | 'DEFAULT_OUTSIDE_SCHEMA'
  /** a schema `pattern` the linear-time regular expression engine (RE2) cannot compile */
  | 'UNSUPPORTED_PATTERN'
  /** a params schema ajv would apply one subschema to one value more than MAX_CHECKS_PER_VALUE times (a recursion through two branches): validation could hold the event loop */
  | 'COSTLY_PARAMS_SCHEMA'
  | 'MISSING_DEFINITION'
  | 'ALIAS_CONFLICT'
  /** a tool's `group` is another tool's name or alias: lists that allow by name give that tool alone (review Z6, Z6-3) */
  | 'GROUP_NAMES_TOOL'
  | 'CONTESTED_NAME'
  | 'NOT_UTF8'
  /** a character a person reading the definition does not see and a model reads (tag, bidi, zero-width, control): review userX, X10 */
  | 'INVISIBLE_TEXT'
  | 'DEPRECATED_SPELLING'
  | 'OPTION_LIKE_ARGUMENT'
  /** a `shell.script` tool declares two parameters that set one `HLDP_PARAM_` variable (`path` and `PATH`): calls giving either are refused */
  | 'SHARED_SCRIPT_VARIABLE'
  /** a `shell.script` holds `{param}` naming a parameter: a script is run as written, never filled in */
  | 'SCRIPT_PLACEHOLDER'
  /** a `git-forgejo` tool's method the executor lacks (an error), or a gatekeeper method brush-holder's gatekeeper lacks (a warning: another may have it) */
  | 'UNKNOWN_METHOD'
  /** a `git-forgejo` tool whose `params_schema` cannot give its method a parameter it needs (`read_file` without `path`): every call would fail */
  | 'METHOD_PARAMS_MISMATCH'
  /** a `shell.script` reads `$HLDP_PARAM_X` for an X that `params_schema` does not declare: always empty at run time */
  | 'UNDECLARED_SCRIPT_VARIABLE'
  | 'FILE_TOO_LARGE'
  | 'NOT_A_FILE'
  /** a toolset names a tool or group the index does not have, or a skill a toolset it does not have */
  | 'UNKNOWN_MEMBER'
  /** a policy rule's `when` names a param no tool the rule covers declares: the condition never holds, so the rule matches nothing (an error; a warning where a tool's schema lets other params through) */
  | 'UNKNOWN_PARAM'
  /** a policy names in `callers` or an access rule a principal the deployment's config does not have (a warning, at validate and at each rescan) */
  | 'UNKNOWN_PRINCIPAL'
  /** a `sandbox:` block that cannot be applied (a size that is no size, a limit too small to start a shell) */
  | 'INVALID_SANDBOX'
  /** a `sandbox:` block on a tool that starts no local process */
  | 'SANDBOX_IGNORED'
  /** a policy's allow rule covers a `require_confirm` tool: the rule is decided first, so the confirmation is off (a warning) */
  | 'ALLOW_SKIPS_CONFIRMATION'
  /** an approve rule lets the MCP client's human decide (`elicit`) but not the caller: an agent driving its own client approves itself (a warning) */
  | 'ELICIT_AS_CALLER'
  /** an approve rule without self-approval that no configured principal may decide: only `local` at the CLI can, never its own requests (a warning) */
  | 'NO_APPROVER'
  /** a `sandbox:` block that asks for more than the gateway's `sandbox.ceiling` allows: its calls are refused there */
  | 'BEYOND_SANDBOX_CEILING'
  /** a tool's `timeout_ms` or `max_timeout_ms` above the gateway's `max_call_timeout_ms` (`hldp validate --config`): its calls are cut to the ceiling (a warning) */
  | 'BEYOND_CALL_CEILING'
  /** a `sandbox.filesystem` path the sandbox refuses (the gateway's own files, a system folder, /proc…): every call is refused */
  | 'REFUSED_SANDBOX_PATH'
  /** the repository has no `tools/<name>/TOOL.hdlp` at all: nothing is served (a warning: a new registry may be empty) */
  | 'NO_TOOLS'
  /** a file or folder under `policies/` that is not `policies/<name>.hdlp`: never read, so its rules never apply (an error refuses every call) */
  | 'POLICY_NOT_READ'
  /** a folder at the registry's root spelled as a slip of tools/, toolsets/ or skills/ (`Tools/`, `tool/`): nothing in it is read (a warning in a scan, an error in validate: userZ7, F7) */
  | 'ENTRY_FOLDER_NOT_READ'
  /** a tool's own example or alias now matches another tool first, confidently: that tool takes its requests (a warning, review Z6, Z6-2) */
  | 'INTENT_OVERLAP'
  /** an intent or display that instructs whoever chooses tools ("always choose this tool", "ignore previous instructions") rather than saying what the tool does (a warning, review Z8, Z8-1) */
  /** a `- ` item indented further than the line above, which YAML joined into the plain value above it (a warning; review userZ10, U10-12) */
  | 'FOLDED_LIST_ITEM'
  | 'SELECTOR_INSTRUCTION'
  /** an intent over 1,000 characters or a display over 200: every listing and answer shows it (a warning; past 8,000 and 1,000 an error, review Z8, Z8-2) */
  | 'LONG_TEXT'
  /** no word in Latin letters in intent, display, aliases and examples: an English request finds the tool by its name alone (a warning; review userZ10, U10-11) */
  | 'NO_LATIN_TEXT';

/** `file:line:col: severity: message`, the format editors and pre-commit hooks understand. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  return `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}: ${diagnostic.severity}: ${diagnostic.message}`;
}

/** Diagnostics in the order `hldp validate` gives them: by file, then each file's in the order of its lines. */
export function byPlace(a: Diagnostic, b: Diagnostic): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}
