import { FORGEJO_METHOD_NAMES, FORGEJO_METHOD_PARAMETERS, GATEKEEPER_METHOD_NAMES, type JsonSchema } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

/** A problem of a tool's method, with how sure the check is that every call fails. */
export type MethodProblem = SchemaProblem & { severity: 'error' | 'warning' };

/**
 * A `method` its executor cannot run, at the field: for `git-forgejo` an error (every call fails
 * EXECUTOR_MISCONFIGURED); for `gatekeeper` a warning, since a gatekeeper other than brush-holder's may answer more
 * methods, where brush-holder's answers UNKNOWN_METHOD.
 */
export function checkExecutorMethod(value: Record<string, unknown>): MethodProblem[] {
  const method = value.method;
  if (typeof method !== 'string') return [];
  if (value.executor === 'git-forgejo' && !FORGEJO_METHOD_NAMES.includes(method)) {
    return [{ path: ['method'], atKey: false, severity: 'error', message: `git-forgejo has no method '${method}': every call would fail; use one of: ${FORGEJO_METHOD_NAMES.join(', ')}` }];
  }
  if (value.executor === 'gatekeeper' && !GATEKEEPER_METHOD_NAMES.includes(method)) {
    return [{ path: ['method'], atKey: false, severity: 'warning', message: `brush-holder's gatekeeper has no method '${method}' (it answers UNKNOWN_METHOD): use one of ${GATEKEEPER_METHOD_NAMES.join(', ')}, unless this tool's gatekeeper is another program that has it` }];
  }
  return [];
}

// keywords through which a schema may take a property `properties` does not name
const OPENING_KEYWORDS = ['patternProperties', 'allOf', 'anyOf', 'oneOf', '$ref', '$dynamicRef', 'if', 'dependentSchemas'];

/**
 * A `git-forgejo` tool whose `params_schema` cannot give its method a parameter the method needs
 * (`METHOD_PARAMS_MISMATCH`): `read_file` without `path`, `create_issue` without `title`. Undeclared in a closed
 * schema (the shorthand always is) or declared as something other than text, every call fails: an error. Undeclared
 * in a schema that lets other properties through, or optional without a default, a call can still work: a warning.
 * (A gatekeeper's parameters are its own program's business: not checked.)
 */
export function checkMethodParameters(value: Record<string, unknown>, schema: JsonSchema): MethodProblem[] {
  const method = value.method;
  if (value.executor !== 'git-forgejo' || typeof method !== 'string' || !Object.hasOwn(FORGEJO_METHOD_PARAMETERS, method)) return [];
  const needed = FORGEJO_METHOD_PARAMETERS[method]!;
  const properties = (isMapping(schema.properties) ? schema.properties : {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  const open = schema.additionalProperties !== false || OPENING_KEYWORDS.some((keyword) => keyword in schema);
  // the written schema is the full form (`properties:`) or the shorthand (parameters right under params_schema)
  const written = value.params_schema;
  const full = isMapping(written) && written.type === 'object';
  const at = (name: string): Array<string | number> => (full ? ['params_schema', 'properties', name] : ['params_schema', name]);
  const problems: MethodProblem[] = [];
  const missing = needed.filter((name) => !Object.hasOwn(properties, name));
  if (missing.length > 0) {
    const names = missing.map((name) => `'${name}'`).join(' and ');
    // advice in the form the schema is written in: `required: true` on a property is the shorthand's alone, which a
    // full JSON Schema refuses (review userZ2, U8)
    const list = missing.join(', ');
    const example = full
      ? `add ${missing.map((name) => `'${name}'`).join(' and ')} to params_schema.properties as {type: string} and to params_schema.required (required: [${list}])`
      : `declare ${missing.map((name) => `${name}: { type: string, required: true }`).join(', ')}`;
    const outcome = open ? 'a caller is never told to send it, so a call fails unless it guesses' : 'every call would fail';
    problems.push({ path: ['params_schema'], atKey: true, severity: open ? 'warning' : 'error', message: `git-forgejo method '${method}' needs ${missing.length > 1 ? 'parameters' : 'parameter'} ${names}, which 'params_schema' does not declare: ${outcome}; ${example}` });
  }
  for (const name of needed.filter((name) => Object.hasOwn(properties, name))) {
    const property = properties[name]!;
    const types = typeof property.type === 'string' ? [property.type] : Array.isArray(property.type) ? (property.type as unknown[]) : undefined;
    if (types !== undefined && !types.includes('string')) {
      problems.push({ path: at(name), atKey: true, severity: 'error', message: `git-forgejo method '${method}' reads parameter '${name}' as text, but 'params_schema' declares it as ${types.join(' or ')}: every call would fail; make it type: string` });
    } else if (!required.has(name) && !Object.hasOwn(property, 'default')) {
      problems.push({ path: at(name), atKey: true, severity: 'warning', message: `git-forgejo method '${method}' needs parameter '${name}', which 'params_schema' leaves optional without a default: a call without it fails; ${full ? `add '${name}' to params_schema.required (required: [${name}])` : 'make it required: true'}, or give it a default` });
    }
  }
  return problems;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
