import { stat } from 'node:fs/promises';
import { parameterVariableProblem, scriptVariableName, sharedScriptVariables, startupVariableProblem, type ArgvTemplate, type ExecutionResult, type ShellSpec, type ToolDefinition } from '../core/index.js';
import { buildArgv, fillTemplate } from './argv-template.js';
import type { ShellConfig } from './execution-context.js';
import { failedResult } from './execution-result.js';
import { minimalEnvironment } from './minimal-env.js';
import { hasValue, ownValue, parameterText, withDefaults, type Params } from './params.js';
import { resolveInsideRoot } from './root-path.js';
import { runProcess } from './run-process.js';

/** A command ready to spawn, or the failure that stopped it being built. */
type Command = { ok: true; file: string; args: string[] } | { ok: false; result: ExecutionResult };

function pickTemplate(spec: ShellSpec, params: Params, start: number): { ok: true; template: ArgvTemplate } | { ok: false; result: ExecutionResult } {
  const argv = spec.argv!;
  if (Array.isArray(argv)) return { ok: true, template: argv };
  if (spec.select === undefined) {
    return { ok: false, result: failedResult('EXECUTOR_MISCONFIGURED', 'shell.argv is a map of templates but shell.select names no parameter to pick one', start) };
  }
  const choice = ownValue(params, spec.select);
  // a boolean picks the template keyed "true" or "false": an on/off flag (review userZ3, MEDIUM 3)
  const template = (typeof choice === 'string' || typeof choice === 'number' || typeof choice === 'boolean') && Object.hasOwn(argv, String(choice)) ? argv[String(choice)] : undefined;
  if (template) return { ok: true, template };
  const choices = Object.keys(argv).join(', ');
  return { ok: false, result: failedResult('INVALID_PARAMS', `parameter '${spec.select}' must be one of: ${choices}; got ${JSON.stringify(choice)}`, start) };
}

function buildCommand(spec: ShellSpec, params: Params, start: number): Command {
  if (spec.script !== undefined) return { ok: true, file: 'sh', args: ['-c', spec.script] };
  if (spec.argv === undefined) return { ok: false, result: failedResult('EXECUTOR_MISCONFIGURED', 'the shell spec has neither argv nor script; give exactly one', start) };
  const picked = pickTemplate(spec, params, start);
  if (!picked.ok) return picked;
  const built = buildArgv(picked.template, params);
  if (!built.ok) return { ok: false, result: failedResult('EXECUTOR_MISCONFIGURED', built.message, start) };
  const [file, ...args] = built.argv;
  return { ok: true, file: file!, args };
}

type Environment = { ok: true; env: Record<string, string> } | { ok: false; code: 'INVALID_PARAMS' | 'EXECUTOR_MISCONFIGURED'; message: string };

function buildEnvironment(spec: ShellSpec, params: Params, declared: readonly string[], config: ShellConfig): Environment {
  const overrides: Record<string, string> = {};
  for (const [name, template] of Object.entries(spec.env ?? {})) {
    const filled = fillTemplate(template, params);
    if (!filled.ok) continue;
    const problem = filled.text !== template ? parameterVariableProblem(name) : undefined;
    if (problem) return { ok: false, code: 'EXECUTOR_MISCONFIGURED', message: `shell.env '${name}' may not take a parameter: ${problem}` };
    // the scan leaves such a tool out (UNSAFE_ENV_VARIABLE): refused again here, as a parameter-filled one is
    const startup = startupVariableProblem(name);
    if (startup) return { ok: false, code: 'EXECUTOR_MISCONFIGURED', message: `shell.env '${name}' may not be set by a tool, even to a fixed value: ${startup}` };
    overrides[name] = filled.text;
  }
  if (spec.script !== undefined) {
    const scriptVariables = exportedParameters(params, declared);
    if (!scriptVariables.ok) return scriptVariables;
    Object.assign(overrides, scriptVariables.env);
  }
  return { ok: true, env: minimalEnvironment(overrides, config.inheritEnv) };
}

// Only what the schema declares: an undeclared `PATH` would otherwise overwrite the checked `path`'s HLDP_PARAM_PATH.
function exportedParameters(params: Params, declared: readonly string[]): Environment {
  const shared = sharedScriptVariables(declared);
  const env: Record<string, string> = {};
  for (const name of declared) {
    const value = ownValue(params, name);
    if (!hasValue(value)) continue;
    const variable = scriptVariableName(name);
    const sharing = shared.get(variable);
    if (sharing) {
      return { ok: false, code: 'INVALID_PARAMS', message: `parameters ${sharing.map((other) => `'${other}'`).join(' and ')} would all set ${variable}, so the script could not tell which it reads; give the tool's parameters names that differ in more than case and punctuation` };
    }
    env[variable] = parameterText(value);
  }
  return { ok: true, env };
}

async function resolveWorkingDirectory(
  spec: ShellSpec,
  params: Params,
  root: string,
  start: number,
): Promise<{ ok: true; cwd: string } | { ok: false; result: ExecutionResult }> {
  const filled = spec.cwd === undefined ? undefined : fillTemplate(spec.cwd, params);
  // a cwd whose placeholders have no value falls back to the root, as an optional group would
  const requested = filled?.ok ? filled.text : '.';
  const resolved = await resolveInsideRoot(root, requested);
  if (!resolved.ok) return { ok: false, result: failedResult(resolved.code, resolved.message, start) };
  const info = await stat(resolved.path).catch(() => undefined);
  if (!info?.isDirectory()) return { ok: false, result: failedResult('IO_ERROR', `ENOTDIR: working directory '${requested}' is not a folder`, start) };
  return { ok: true, cwd: resolved.path };
}

function declaredParameters(tool: ToolDefinition): string[] {
  const properties = tool.params_schema.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** Why a `shell` tool cannot run here at all (see `unconfiguredTarget`): no shell root configured, or no shell section. */
export function shellTargetProblem(tool: ToolDefinition, config: ShellConfig | undefined): string | undefined {
  if (!config) return `tool '${tool.name}' runs on the shell executor, but no shell root is configured; set shell.root in the gateway config`;
  if (!tool.shell) return `tool '${tool.name}' has executor 'shell' but no shell section; add shell.argv or shell.script to its TOOL.hdlp`;
  return undefined;
}

/** Runs a `shell` tool: an argv template (no shell at all) or a fixed `sh -c` script reading params from the environment (and, with `stdin: json`, from standard input). */
export async function executeShell(
  tool: ToolDefinition,
  rawParams: Params,
  config: ShellConfig | undefined,
  signal?: AbortSignal,
): Promise<ExecutionResult> {
  const start = performance.now();
  const problem = shellTargetProblem(tool, config);
  if (problem !== undefined || !config || !tool.shell) return failedResult('EXECUTOR_MISCONFIGURED', problem ?? `tool '${tool.name}' cannot run on the shell executor`, start);
  const params = withDefaults(tool.params_schema, rawParams);
  const command = buildCommand(tool.shell, params, start);
  if (!command.ok) return command.result;
  const environment = buildEnvironment(tool.shell, params, declaredParameters(tool), config);
  if (!environment.ok) return failedResult(environment.code, environment.message, start);
  // the kernel ends every argument and variable at a NUL: a value holding one would arrive cut short
  if ([...command.args, ...Object.values(environment.env)].some((text) => text.includes('\0'))) {
    return failedResult('INVALID_PARAMS', 'parameter values may not contain NUL characters (\\0)', start);
  }
  const directory = await resolveWorkingDirectory(tool.shell, params, config.root, start);
  if (!directory.ok) return directory.result;
  return runProcess({
    file: command.file,
    args: command.args,
    cwd: directory.cwd,
    env: environment.env,
    timeoutMs: tool.constraints.timeout_ms,
    maxOutputBytes: tool.constraints.max_output_bytes,
    signal,
    ...(tool.shell.stdin === 'json' ? { input: JSON.stringify(params) } : {}),
    ...(tool.shell.ok_exit_codes ? { okExitCodes: tool.shell.ok_exit_codes } : {}),
    ...(config.sandbox ? { isolation: { sandbox: config.sandbox, workspace: config.root, ...(tool.sandbox ? { declared: tool.sandbox } : {}) } } : {}),
  });
}
