import { listPlaceholders, nearWord, parameterVariableProblem, scriptVariableName, sharedScriptVariables, startupVariableProblem, wholePlaceholder, type JsonSchema } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

/** The per-executor fields that may reference parameters (already shape-checked by the schema). */
interface ExecutorFields {
  shell?: { argv?: unknown; select?: string; env?: Record<string, string>; cwd?: string; script?: string };
  http?: { method?: string; path?: string; query?: string[]; body?: string[] | string; headers?: Record<string, string> };
}

/** Checks that every `{param}` a template names is declared, and that `select` covers its parameter's values. */
export function checkTemplates(fields: ExecutorFields, paramsSchema: JsonSchema): SchemaProblem[] {
  const declared = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  const problems: SchemaProblem[] = [];
  const requireDeclared = (name: string, path: Array<string | number>, what: string, literal = ''): void => {
    // own names only: a placeholder named `constructor` or `__proto__` declares nothing
    if (!Object.hasOwn(declared, name)) {
      // a typo is told the parameter it most likely meant (userZ7, F8); else, in argv, how to pass the braces as text (F3)
      const near = nearWord(name, Object.keys(declared));
      const fix = near !== undefined ? `; did you mean '${near}'?` : literal;
      problems.push({ path, atKey: false, message: `${what} '${name}' is not a parameter in 'params_schema' (declared: ${Object.keys(declared).join(', ') || 'none'})${fix}` });
    }
  };
  const checkText = (text: string, path: Array<string | number>): void => {
    for (const placeholder of listPlaceholders(text)) {
      const literal = path[1] === 'argv' ? `; to pass a literal {${placeholder.name}} (curl -w "%{http_code}", jq '{name}'), use shell.script: argv has no escape for braces, a script's braces are the shell's own` : '';
      requireDeclared(placeholder.name, path, 'placeholder', literal);
    }
  };
  const { shell, http } = fields;
  if (shell) {
    forEachArgv(shell.argv, (text, path) => checkText(text, ['shell', 'argv', ...path]));
    for (const [key, value] of Object.entries(shell.env ?? {})) checkText(value, ['shell', 'env', key]);
    if (shell.cwd) checkText(shell.cwd, ['shell', 'cwd']);
    problems.push(...checkSelect(shell, declared));
  }
  if (http) {
    if (http.method) checkText(http.method, ['http', 'method']);
    if (http.path) checkText(http.path, ['http', 'path']);
    for (const [key, value] of Object.entries(http.headers ?? {})) checkText(value, ['http', 'headers', key]);
    (http.query ?? []).forEach((name, index) => requireDeclared(name, ['http', 'query', index], 'query parameter'));
    if (typeof http.body === 'string') requireDeclared(wholePlaceholder(http.body) ?? http.body, ['http', 'body'], 'body parameter');
    else (http.body ?? []).forEach((name, index) => requireDeclared(name, ['http', 'body', index], 'body parameter'));
  }
  return problems;
}

/**
 * Environment variables a tool sets: never a loader or shell-startup one, and a parameter fills only plain names that
 * no program runs or obeys (`UNSAFE_ENV_VARIABLE`).
 */
export function checkEnvironment(fields: ExecutorFields): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [key, value] of Object.entries(fields.shell?.env ?? {})) {
    const problem = listPlaceholders(value).length > 0 ? parameterVariableProblem(key) : undefined;
    if (problem) {
      problems.push({ path: ['shell', 'env', key], atKey: true, message: `'shell.env.${key}' may not take a parameter: ${problem} (set it to a fixed value, or pass the parameter as an argument)` });
      continue;
    }
    const startup = startupVariableProblem(key);
    if (startup) {
      problems.push({ path: ['shell', 'env', key], atKey: true, message: `'shell.env.${key}' may not be set by a tool, even to a fixed value: ${startup} (leave it out: put a library the tool needs where the system finds it, or let the tool's own program set it)` });
    }
  }
  return problems;
}

/**
 * What the shell executor would refuse at every call that reaches it (`UNFILLABLE_TEMPLATE`), found
 * without running anything: a placeholder in the program name; an element outside an optional group
 * needing a parameter that may be left out and has no default; a list parameter inside a longer text.
 */
export function checkArgvFillable(fields: ExecutorFields, paramsSchema: JsonSchema): SchemaProblem[] {
  const declared = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(paramsSchema.required) ? (paramsSchema.required as string[]) : []);
  const property = (name: string): JsonSchema | undefined => (Object.hasOwn(declared, name) ? declared[name] : undefined);
  const isList = (name: string): boolean => {
    const type = property(name)?.type;
    return type === 'array' || (Array.isArray(type) && type.includes('array'));
  };
  const mayBeMissing = (name: string): boolean => {
    const schema = property(name);
    return schema !== undefined && !required.has(name) && !Object.hasOwn(schema, 'default');
  };
  const problems: SchemaProblem[] = [];
  const checkElement = (text: string, path: Array<string | number>, inGroup: boolean): void => {
    const names = listPlaceholders(text).map((placeholder) => placeholder.name);
    const whole = wholePlaceholder(text);
    const listed = whole === undefined ? names.find(isList) : undefined;
    if (listed !== undefined) {
      problems.push({ path, atKey: false, message: `argv element '${text}' mixes text with list parameter '${listed}'; a list can only fill a whole element like "{${listed}}"` });
    }
    const missing = inGroup ? undefined : names.find(mayBeMissing);
    if (missing !== undefined) {
      problems.push({ path, atKey: false, message: `argv element '${text}' needs parameter '${missing}', which is optional and has no default, so a call without it would fail: make it required, give it a default, or put the element in an optional group ["${text}"]` });
    }
  };
  for (const [list, prefix] of argvTemplates(fields.shell?.argv)) {
    const program = list[0];
    if (typeof program === 'string' && listPlaceholders(program).length > 0) {
      problems.push({ path: ['shell', 'argv', ...prefix, 0], atKey: false, message: `the program '${program}' must be fixed text: a parameter may never choose what runs` });
    }
    list.forEach((item, index) => {
      if (Array.isArray(item)) item.forEach((inner, innerIndex) => checkElement(String(inner), ['shell', 'argv', ...prefix, index, innerIndex], true));
      else if (index > 0) checkElement(String(item), ['shell', 'argv', ...prefix, index], false);
    });
  }
  return problems;
}

/**
 * Whole-argument placeholders that a value starting with `-` would turn into an option of the program
 * (`ls {path}` with path `--help`): warned about unless `--` or `--end-of-options` comes first, the
 * argument is an option's value (`-m {message}`), or the parameter's schema restricts its values.
 */
export function checkOptionLikeArguments(fields: ExecutorFields, paramsSchema: JsonSchema): SchemaProblem[] {
  const declared = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  const restricted = (schema: JsonSchema | undefined): boolean =>
    schema === undefined || ['enum', 'const', 'pattern', 'format'].some((key) => key in schema) || (schema.type !== undefined && schema.type !== 'string');
  const problems: SchemaProblem[] = [];
  const checkList = (list: unknown[], prefix: Array<string | number>): void => {
    let optionsEnded = false;
    let previous = '';
    list.forEach((item, index) => {
      const texts = Array.isArray(item) ? item.map(String) : [String(item)];
      texts.forEach((text, inner) => {
        const before = inner > 0 ? texts[inner - 1]! : previous;
        const name = wholePlaceholder(text);
        const optionValue = before.startsWith('-') && before !== '--' && before !== '--end-of-options';
        if (name !== undefined && index > 0 && !optionsEnded && !optionValue && !restricted(Object.hasOwn(declared, name) ? declared[name] : undefined)) {
          const path = Array.isArray(item) ? [...prefix, index, inner] : [...prefix, index];
          problems.push({ path, atKey: false, message: `parameter '${name}' is a whole argument: a value starting with '-' would be read as an option; put '--' (or '--end-of-options' for git) before it, or give '${name}' a pattern` });
        }
        if (text === '--' || text === '--end-of-options') optionsEnded = true;
      });
      previous = texts[texts.length - 1] ?? '';
    });
  };
  for (const [list, prefix] of argvTemplates(fields.shell?.argv)) checkList(list, ['shell', 'argv', ...prefix]);
  return problems;
}

/** Parameters of a `shell.script` tool that would set one `HLDP_PARAM_` variable (`path` and `PATH`): the executor refuses a call that gives either. */
export function checkScriptVariables(fields: ExecutorFields, paramsSchema: JsonSchema): SchemaProblem[] {
  if (typeof fields.shell?.script !== 'string') return [];
  const declared = Object.keys((paramsSchema.properties ?? {}) as Record<string, JsonSchema>);
  // the written schema is the full form (`properties:`) or the shorthand (parameters right under params_schema)
  const written = (fields as { params_schema?: unknown }).params_schema;
  const full = typeof written === 'object' && written !== null && 'properties' in written;
  return [...sharedScriptVariables(declared)].map(([variable, names]) => ({
    path: full ? ['params_schema', 'properties', names.at(-1)!] : ['params_schema', names.at(-1)!],
    atKey: true,
    message: `parameters ${names.map((name) => `'${name}'`).join(' and ')} would all set ${variable} for the script, and a call giving any of them is refused; rename them so that they differ in more than case and punctuation`,
  }));
}

/**
 * A `{param}` in `shell.script` naming a declared parameter (`SCRIPT_PLACEHOLDER`): a script runs through `sh -c` as
 * written, so the text would reach the shell as the literal `{param}` at every call (filling it in would be shell
 * injection); the parameter arrives as `HLDP_PARAM_<NAME>`. Braces naming no parameter are the shell's or awk's own.
 */
export function checkScriptPlaceholders(fields: ExecutorFields, paramsSchema: JsonSchema): SchemaProblem[] {
  const script = fields.shell?.script;
  if (typeof script !== 'string') return [];
  const declared = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  const named = listPlaceholders(script).filter((placeholder) => Object.hasOwn(declared, placeholder.name) && script[placeholder.index - 1] !== '$');
  return [...new Set(named.map((placeholder) => placeholder.name))].map((name) => ({
    path: ['shell', 'script'],
    atKey: false,
    message: `'shell.script' runs through sh -c as written: '{${name}}' is not replaced by parameter '${name}' (placeholders are filled in shell.argv only); read it from its variable instead, "$${scriptVariableName(name)}" (in double quotes)`,
  }));
}

// `shell.argv` is one template, or a map of templates by the value of `shell.select`
function argvTemplates(argv: unknown): Array<[unknown[], string[]]> {
  if (Array.isArray(argv)) return [[argv, []]];
  if (!argv || typeof argv !== 'object') return [];
  return Object.entries(argv).flatMap(([key, list]): Array<[unknown[], string[]]> => (Array.isArray(list) ? [[list, [key]]] : []));
}

function forEachArgv(argv: unknown, visit: (text: string, path: Array<string | number>) => void): void {
  for (const [list, prefix] of argvTemplates(argv)) {
    list.forEach((item, index) => {
      if (typeof item === 'string') visit(item, [...prefix, index]);
      else if (Array.isArray(item)) item.forEach((inner, innerIndex) => visit(String(inner), [...prefix, index, innerIndex]));
    });
  }
}

function checkSelect(shell: NonNullable<ExecutorFields['shell']>, declared: Record<string, JsonSchema>): SchemaProblem[] {
  const isMap = shell.argv !== undefined && !Array.isArray(shell.argv);
  if (isMap && !shell.select) {
    return [{ path: ['shell', 'argv'], atKey: true, message: "'shell.argv' has one template per value, so 'shell.select' must name the parameter that picks it" }];
  }
  if (!shell.select) return [];
  if (!isMap) {
    return [{ path: ['shell', 'select'], atKey: false, message: "'shell.select' needs 'shell.argv' to be a map of templates, one per value" }];
  }
  const parameter = Object.hasOwn(declared, shell.select) ? declared[shell.select] : undefined;
  if (!parameter) {
    return [{ path: ['shell', 'select'], atKey: false, message: `'shell.select' names '${shell.select}', which is not a parameter in 'params_schema'` }];
  }
  const values = selectValues(parameter);
  const templates = Object.keys(shell.argv as object);
  if (!values) {
    return [{ path: ['params_schema', shell.select], atKey: true, message: `parameter '${shell.select}' picks the argv template, so it needs an 'enum' of: ${templates.join(', ')} (or 'type: boolean', with templates "true" and "false")` }];
  }
  const missing = values.filter((value) => !templates.includes(value));
  return missing.length
    ? [{ path: ['shell', 'argv'], atKey: true, message: `'shell.argv' has no template for ${missing.map((value) => `'${value}'`).join(', ')} of parameter '${shell.select}'` }]
    : [];
}

/** The values a `shell.select` parameter can take: its `enum`, or true and false for a boolean without one. */
export function selectValues(parameter: JsonSchema): string[] | undefined {
  if (Array.isArray(parameter.enum)) return parameter.enum.map(String);
  return parameter.type === 'boolean' ? ['true', 'false'] : undefined;
}
