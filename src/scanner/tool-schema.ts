import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { splitInstancePath } from './yaml-locator.js';

/** Where the `TOOL.hdlp` JSON Schema lives: `schemas/` at the package root (same depth from `src/` and `dist/`). */
export const TOOL_SCHEMA_URL = new URL('../../schemas/tool.schema.json', import.meta.url);

/** One problem with a definition's shape, with the JSON path it concerns. */
export interface SchemaProblem {
  path: Array<string | number>;
  /** point at the key rather than the value (unknown fields) */
  atKey: boolean;
  message: string;
}

let compiled: ValidateFunction | undefined;

/** The compiled `TOOL.hdlp` validator; compiled once per process. */
function toolValidator(): ValidateFunction {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(TOOL_SCHEMA_URL, 'utf8')) as object;
    const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true });
    compiled = ajv.compile(schema);
  }
  return compiled;
}

/** Checks a parsed definition against `schemas/tool.schema.json`; returns readable problems, most specific first. */
export function checkToolShape(value: unknown): SchemaProblem[] {
  const validate = toolValidator();
  if (validate(value)) return [];
  return describeErrors(validate.errors ?? []);
}

// if/then/else wrap the real error; keep only errors no deeper error explains
const WRAPPER_KEYWORDS = new Set(['if', 'oneOf', 'allOf', 'then', 'else']);

function describeErrors(errors: ErrorObject[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  const unions = errors.filter((error) => error.keyword === 'anyOf');
  for (const error of errors) {
    if (WRAPPER_KEYWORDS.has(error.keyword) && !isOneOfCount(error)) continue;
    const explained = unions.some((union) => union !== error && isWithin(error.instancePath, union.instancePath));
    if (explained) continue;
    const problem = describeError(error, errors);
    const key = `${problem.path.join('.')}:${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function isWithin(instancePath: string, ancestor: string): boolean {
  return instancePath === ancestor || instancePath.startsWith(`${ancestor}/`);
}

function isOneOfCount(error: ErrorObject): boolean {
  return error.keyword === 'oneOf' && (error.params as { passingSchemas?: unknown }).passingSchemas != null;
}

function describeError(error: ErrorObject, all: ErrorObject[]): SchemaProblem {
  const path = splitInstancePath(error.instancePath);
  const where = path.length ? `'${path.join('.')}'` : 'TOOL.hdlp';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      return { path, atKey: false, message: `missing required field '${[...path, missing].join('.')}'` };
    }
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const allowed = allowedFields(error);
      const hint = allowed.length ? `; allowed: ${allowed.join(', ')}` : '';
      return { path: [...path, field], atKey: true, message: `unknown field '${[...path, field].join('.')}'${hint}` };
    }
    case 'propertyNames':
    case 'pattern': {
      if (error.keyword === 'propertyNames') return { path, atKey: true, message: `${where}: ${error.message}` };
      return { path, atKey: false, message: patternMessage(path, String(params.pattern)) };
    }
    case 'enum':
      return { path, atKey: false, message: `${where} must be one of: ${enumValues(params.allowedValues)}` };
    case 'const':
      return { path, atKey: false, message: `${where} must be ${JSON.stringify(params.allowedValue)}` };
    case 'type': {
      const expected = all
        .filter((other) => other.instancePath === error.instancePath && other.keyword === 'type')
        .map((other) => String((other.params as { type: unknown }).type));
      return { path, atKey: false, message: `${where} must be ${[...new Set(expected)].join(' or ')}` };
    }
    case 'anyOf': {
      // a failed union says once what it accepts (the schema's `x-expected`), not one error per alternative
      const expected = (error.parentSchema as { 'x-expected'?: string } | undefined)?.['x-expected'];
      return { path, atKey: false, message: `${where} must be ${expected ?? 'one of the allowed forms'}` };
    }
    case 'oneOf':
      return { path, atKey: false, message: `${where} must have exactly one of: ${oneOfRequired(error)}` };
    case 'minLength':
      return { path, atKey: false, message: `${where} must not be empty` };
    default:
      return { path, atKey: false, message: `${where} ${error.message ?? 'is invalid'}` };
  }
}

function allowedFields(error: ErrorObject): string[] {
  const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

function enumValues(values: unknown): string {
  const list = Array.isArray(values) ? values : [];
  // the spec's misspelling is accepted but not advertised
  return list.filter((value) => value !== 'hlpd-api').map(String).join(', ');
}

function oneOfRequired(error: ErrorObject): string {
  const branches = (error.schema as Array<{ required?: string[] }> | undefined) ?? [];
  const names = branches.flatMap((branch) => branch.required ?? []);
  return names.length ? names.map((name) => `'${name}'`).join(', ') : 'the alternatives';
}

const PATTERN_MESSAGES: Record<string, string> = {
  name: "'name' must be ASCII letters, digits, '.', '_' or '-', starting with a letter or digit, no spaces, at most 128 characters",
  created: "'created' must be an ISO date such as 2026-05-31 (optionally with a time)",
  method: "'method' must be a single word such as exec or read_file (letters, digits, '.', '_', '/', '-')",
};

function patternMessage(path: Array<string | number>, pattern: string): string {
  const known = path.length === 1 ? PATTERN_MESSAGES[String(path[0])] : undefined;
  return known ?? `'${path.join('.')}' must match the pattern ${pattern}`;
}
