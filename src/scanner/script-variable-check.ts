import { nearWord, scriptVariableName, type JsonSchema } from '../core/index.js';
import { findScriptVariables, type ScriptVariableReference } from './script-variables.js';
import type { SchemaProblem } from './shape-checker.js';

/** Undeclared variables reported by name, at most: the rest are counted in the last. */
const MAX_PROBLEMS = 10;
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names the shell or the sandbox's environment sets: a parameter so named is not assumed unset in a script. */
const SET_BY_SHELL = new Set(['HOME', 'PATH', 'PWD', 'OLDPWD', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'TERM', 'IFS', 'PS1', 'PS2', 'PS4', 'OPTARG', 'OPTIND', 'PPID', 'LINENO', 'RANDOM', 'SECONDS', 'HOSTNAME']);

/** A problem at one place inside `shell.script`: the `occurrence`-th (0-based) time `text` is written in it. */
export type ScriptProblem = SchemaProblem & { severity: 'error' | 'warning'; within: { text: string; occurrence: number } };

/**
 * `$HLDP_PARAM_X` in a `shell.script` for an X that `params_schema` does not declare (`UNDECLARED_SCRIPT_VARIABLE`,
 * review userY, Y3): the executor exports declared parameters only, so the variable is always empty, silently.
 * An error where `sh` expands it; a warning where every use gives a default or an alternative (`${X:-0}`), where it does not (single quotes, `<<'EOF'`: a program handed the text may)
 * or where the script could not be read to a clean end. Names the script sets itself or `shell.env` sets are left alone.
 * A declared parameter read by its own name (`echo "hello ${name}"`) is a warning with the variable to read (review
 * userZ7, F12: the call ran with it empty), never an error: the script may set it where this reader cannot see (review Z12).
 */
export function checkUndeclaredScriptVariables(fields: { shell?: { script?: unknown; env?: unknown } }, paramsSchema: JsonSchema): ScriptProblem[] {
  const script = fields.shell?.script;
  if (typeof script !== 'string') return [];
  const properties = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  const variables = new Map(Object.keys(properties).map((name) => [scriptVariableName(name), name]));
  // a parameter read by its own name (`${name}`): nothing sets it, parameters reach a script as $HLDP_PARAM_NAME (review userZ7, F12)
  const ownNames = new Set(Object.keys(properties).filter((name) => SHELL_NAME.test(name) && !SET_BY_SHELL.has(name) && script.includes(name)));
  if (!script.includes('HLDP_PARAM_') && ownNames.size === 0) return [];
  const env = fields.shell?.env;
  const fixed = new Set(typeof env === 'object' && env !== null ? Object.keys(env) : []);
  const found = findScriptVariables(script, ownNames);
  // one problem a variable, where it is surest (a script of 70,000 uses of one name is one problem, found in linear time)
  const byName = new Map<string, { at: ScriptVariableReference; uses: number }>();
  for (const reference of found.references) {
    if (variables.has(reference.name) || found.assigned.has(reference.name) || fixed.has(reference.name)) continue;
    const seen = byName.get(reference.name);
    // the place shown is the first plain use sh expands, else the first with a default, else the first
    if (seen === undefined) byName.set(reference.name, { at: reference, uses: 1 });
    else byName.set(reference.name, { at: rank(reference) > rank(seen.at) ? reference : seen.at, uses: seen.uses + 1 });
  }
  const chosen = [...byName.values()].sort((one, other) => one.at.index - other.at.index);
  const problems: ScriptProblem[] = [];
  for (const { at: reference, uses } of chosen.slice(0, MAX_PROBLEMS)) {
    const plain = rank(reference) === 2;
    // a variable read only with a default or an alternative is a deliberate optional switch (`${X:-0}`): the tool
    // works, with the default, so a push must not take it out of service (review userZ2, U9); a plain `$X` is a typo's,
    // and so is a defaulted one a declared parameter's name is near (`${HLDP_PARAM_max_count:-10}`: its value is lost)
    const certain = found.clean && reference.context !== 'literal' && (plain || nearVariable(reference.name, variables) !== undefined);
    const more = uses > 1 ? ` (here and ${uses - 1} more ${uses > 2 ? 'times' : 'time'})` : '';
    const outcome = rank(reference) !== 1 ? 'it is always empty' : `its default or alternative is always the one taken (\${${reference.name}:-…})`;
    const own = ownNames.has(reference.name);
    problems.push({
      path: ['shell', 'script'],
      atKey: false,
      // a parameter's own name is a warning: the script may have it another way (an inherited variable of that name,
      // `eval`, `printf -v`), and an error would take a tool that works out of service (review Z12, finding 5)
      severity: certain && !own ? 'error' : 'warning',
      within: { text: reference.name, occurrence: occurrenceOf(script, reference) },
      message: own
        ? `${where(reference, found.clean)} reads $${reference.name}${more}, which nothing sets: a parameter reaches a script as $${scriptVariableName(reference.name)}, so ${outcome}; did you mean $${scriptVariableName(reference.name)} (parameter '${reference.name}')?`
        : `${where(reference, found.clean)} reads $${reference.name}${more}, but 'params_schema' declares no parameter that sets it, so ${outcome}; ${advice(reference.name, variables)}`,
    });
  }
  if (chosen.length > MAX_PROBLEMS) problems.at(-1)!.message += `; and ${chosen.length - MAX_PROBLEMS} more undeclared variables`;
  return problems;
}

// how surely a use reads nothing: a plain one sh expands (2), one with a default or an alternative (1), a literal one (0)
function rank(reference: ScriptVariableReference): number {
  return reference.context === 'literal' ? 0 : reference.defaulted ? 1 : 2;
}

function where(reference: ScriptVariableReference, clean: boolean): string {
  if (reference.context === 'literal') return "'shell.script' (in single quotes or a quoted here-document, so only a program it is handed to may expand it)";
  return clean ? "'shell.script'" : "'shell.script' (as far as this check could follow its quoting)";
}

function nearVariable(variable: string, variables: ReadonlyMap<string, string>): string | undefined {
  const suffix = variable.slice('HLDP_PARAM_'.length);
  return nearWord(suffix, [...variables.keys()].map((name) => name.slice('HLDP_PARAM_'.length)));
}

function advice(variable: string, variables: ReadonlyMap<string, string>): string {
  const near = nearVariable(variable, variables);
  if (near !== undefined) return `did you mean $HLDP_PARAM_${near} (parameter '${variables.get(`HLDP_PARAM_${near}`)}')?`;
  const declared = [...variables].map(([name, parameter]) => `$${name} ('${parameter}')`).join(', ');
  return `declare the parameter in 'params_schema'${declared ? `, or read one that is declared: ${declared}` : ' (it declares none)'}`;
}

// how many times the name was written before this reference, so the diagnostic can find it in the file's text
function occurrenceOf(script: string, reference: ScriptVariableReference): number {
  let count = 0;
  for (let at = script.indexOf(reference.name); at >= 0 && at < reference.index; at = script.indexOf(reference.name, at + 1)) count += 1;
  return count;
}
