import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { nearWord } from '../core/index.js';
import { ajv2020 } from './ajv-module.js';
import { isTypeKeywordPath, JSON_TYPES, jsonTypeHint } from './json-type-words.js';
import { splitInstancePath } from './yaml-locator.js';

/** One problem with a definition's shape, with the JSON path it concerns. */
export interface SchemaProblem {
  path: Array<string | number>;
  /** point at the key rather than the value (unknown fields) */
  atKey: boolean;
  message: string;
  /** the field missing from the mapping at `path` (a `required` problem): the error is that field's, not the whole mapping's */
  missing?: string;
}

/** Validates a value against a JSON Schema and explains each problem in words, with the path it concerns. */
export type ShapeChecker = (value: unknown) => SchemaProblem[];

/** How to compile a shape checker. */
export interface ShapeCheckerOptions {
  /**
   * The schema is one of this package's own (`schemas/`, the OpenAPI document), which a test checks against the
   * JSON Schema meta-schema: it is not checked again when compiled. Checking compiles the 2020-12 meta-schema in
   * each checker's own Ajv instance, most of what compiling a small schema costs (a server compiles several as it starts).
   */
  ownSchema?: boolean;
  /** the value was read from YAML: a number or boolean where text is expected is told how to quote it */
  fromYaml?: boolean;
}

/**
 * Compiles a schema once into a checker whose messages name the field and the fix.
 * A property's `x-expected` annotation, when present, says in words what a failed `pattern` or union accepts.
 */
export function compileShapeChecker(schema: object, rootName = 'TOOL.hdlp', options: ShapeCheckerOptions = {}): ShapeChecker {
  const Ajv2020 = ajv2020();
  const validate: ValidateFunction = new Ajv2020({ allErrors: true, strict: false, verbose: true, ...(options.ownSchema ? { validateSchema: false } : {}) }).compile(schema);
  return (value) => (validate(value) ? [] : describeErrors(validate.errors ?? [], rootName, options.fromYaml === true));
}

// if/then/else wrap the real error; keep only errors no deeper error explains
const WRAPPER_KEYWORDS = new Set(['if', 'oneOf', 'allOf', 'then', 'else']);

function describeErrors(errors: ErrorObject[], rootName: string, fromYaml: boolean): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  const unions = errors.filter((error) => error.keyword === 'anyOf');
  // a oneOf of required fields that none meets ('shell' with neither argv nor script) is one problem, not one per field
  const neither = errors.filter(isMissingAlternatives);
  let unknownFields = 0;
  for (const error of errors) {
    if (error.keyword === 'required' && neither.some((union) => error.schemaPath.startsWith(`${union.schemaPath}/`))) continue;
    if (isMissingAlternatives(error)) {
      const path = splitInstancePath(error.instancePath);
      problems.push({ path, atKey: false, message: `${path.length ? `'${path.join('.')}'` : rootName} needs one of: ${oneOfRequired(error)}` });
      continue;
    }
    if (WRAPPER_KEYWORDS.has(error.keyword) && !isOneOfCount(error)) continue;
    // `shell:` with nothing under it is null: "must be object" says it; "exactly one of argv, script" would mislead
    if (isOneOfCount(error) && errors.some((other) => other.keyword === 'type' && other.instancePath === error.instancePath)) continue;
    const explained = unions.some((union) => union !== error && isWithin(error.instancePath, union.instancePath));
    // a union failing inside another names the element at fault (`shell.argv.2`), not the whole list
    const deeper = error.keyword === 'anyOf' && unions.some((union) => union.instancePath !== error.instancePath && isWithin(union.instancePath, error.instancePath));
    if (deeper) continue;
    if (explained && !(error.keyword === 'anyOf' && isInnermostUnion(error, unions))) continue;
    // past the first 100 unknown fields none is told its nearest word: a definition of 90,000 keys spent a second on them (review Z14, Z14-3)
    const plain = error.keyword === 'additionalProperties' && ++unknownFields > 100;
    const problem = describeError(error, errors, rootName, fromYaml, !plain);
    const key = `${problem.path.join('.')}:${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function isInnermostUnion(error: ErrorObject, unions: ErrorObject[]): boolean {
  return !unions.some((union) => union.instancePath !== error.instancePath && isWithin(union.instancePath, error.instancePath));
}

function isWithin(instancePath: string, ancestor: string): boolean {
  return instancePath === ancestor || instancePath.startsWith(`${ancestor}/`);
}

function isMissingAlternatives(error: ErrorObject): boolean {
  if (error.keyword !== 'oneOf' || (error.params as { passingSchemas?: unknown }).passingSchemas != null) return false;
  const branches = error.schema as unknown;
  return Array.isArray(branches) && branches.length > 1 && branches.every((branch) => typeof branch === 'object' && branch !== null && Object.keys(branch).join() === 'required');
}

function isOneOfCount(error: ErrorObject): boolean {
  return error.keyword === 'oneOf' && (error.params as { passingSchemas?: unknown }).passingSchemas != null;
}

function describeError(error: ErrorObject, all: ErrorObject[], rootName: string, fromYaml: boolean, nearHint = true): SchemaProblem {
  const path = splitInstancePath(error.instancePath);
  const where = path.length ? `'${path.join('.')}'` : rootName;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      return { path, atKey: false, missing, message: `missing required field '${[...path, missing].join('.')}'` };
    }
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const allowed = allowedFields(error);
      const near = nearHint ? nearWord(field, allowed) : undefined;
      // a typo is told the field it most likely meant before the whole list (review W, W6)
      const hint = (near ? `; did you mean '${near}'?` : '') + (allowed.length ? `; allowed: ${allowed.join(', ')}` : '');
      // YAML 1.1's merge key, which YAML 1.2's core schema (how definitions are read) does not have (review userU, F9)
      const merge = fromYaml && field === '<<' ? `: '<<' is a YAML 1.1 merge key, and YAML 1.2 (how this file is read) has none; write the keys out${path.length ? ` under '${path.join('.')}'` : ''}` : '';
      return { path: [...path, field], atKey: true, message: `unknown field '${[...path, field].join('.')}'${merge}${hint}` };
    }
    case 'propertyNames':
    case 'pattern': {
      if (error.keyword === 'propertyNames') return { path, atKey: true, message: `${where}: ${error.message}` };
      return { path, atKey: false, message: `${where} must be ${expectedOf(error) ?? `a string matching ${String(params.pattern)}`}` };
    }
    case 'enum': {
      const allowed = enumValues(params.allowedValues);
      const near = typeof error.data === 'string' ? nearWord(error.data, allowed) : undefined;
      const hint = near ? `; did you mean '${near}'?` : offersJsonTypes(error, [error], path) ? jsonTypeHint(error.data) : '';
      return { path, atKey: false, message: `${where} must be one of: ${allowed.join(', ')}${hint}${emptyHint(path, error.data, fromYaml)}` };
    }
    case 'const':
      return { path, atKey: false, message: `${where} must be ${JSON.stringify(params.allowedValue)}` };
    case 'type': {
      const expected = all
        .filter((other) => other.instancePath === error.instancePath && other.keyword === 'type')
        .map((other) => String((other.params as { type: unknown }).type));
      // YAML reads `name: 123` as a number and `name: true` as a boolean: say how to write it as text
      const typed = fromYaml && expected.includes('string') && (typeof error.data === 'number' || typeof error.data === 'boolean') ? `: YAML read ${String(error.data)} as a ${typeof error.data}; quote it if it is text ('${String(error.data)}')` : '';
      return { path, atKey: false, message: `${where} must be ${[...new Set(expected)].join(' or ')}${typed}${fromYaml ? yamlBooleanHint(expected, error.data) : ''}${unitHint(path, expected, error.data)}${fromYaml ? listHint(path, expected, error.data) : ''}${emptyHint(path, error.data, fromYaml)}` };
    }
    case 'anyOf': {
      // a failed union says once what it accepts, not one error per alternative
      const typeHint = offersJsonTypes(error, all, path) ? jsonTypeHint(error.data) : '';
      return { path, atKey: false, message: `${where} must be ${expectedOf(error) ?? 'one of the allowed forms'}${typeHint}${emptyHint(path, error.data, fromYaml)}` };
    }
    case 'oneOf':
      return { path, atKey: false, message: `${where} must have exactly one of: ${oneOfRequired(error)}` };
    case 'minLength':
      return { path, atKey: false, message: expectedOf(error) ? `${where} must be ${expectedOf(error)}` : `${where} must not be empty` };
    case 'maxLength':
      // intent and display are what every listing and answer shows an agent: one line, not a document (review Z8, Z8-2)
      if (path.length === 1 && (path[0] === 'intent' || path[0] === 'display')) {
        return { path, atKey: false, message: `${where} must be at most ${String(params.limit)} characters (it has ${typeof error.data === 'string' ? [...error.data].length : '?'})${LONG_TEXT_HINT}` };
      }
      return { path, atKey: false, message: `${where} ${error.message ?? 'is too long'}` };
    default:
      return { path, atKey: false, message: `${where} ${error.message ?? 'is invalid'}` };
  }
}

function allowedFields(error: ErrorObject): string[] {
  const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

function enumValues(values: unknown): string[] {
  const list = Array.isArray(values) ? values : [];
  // the spec's misspelling is accepted but not advertised
  return list.filter((value) => value !== 'hlpd-api').map(String);
}

function oneOfRequired(error: ErrorObject): string {
  const branches = (error.schema as Array<{ required?: string[] }> | undefined) ?? [];
  const names = branches.flatMap((branch) => branch.required ?? []);
  return names.length ? names.map((name) => `'${name}'`).join(', ') : 'the alternatives';
}

function expectedOf(error: ErrorObject): string | undefined {
  return (error.parentSchema as { 'x-expected'?: string } | undefined)?.['x-expected'];
}

// YAML 1.1 read these as booleans; YAML 1.2 (how definitions are read) reads them as text (review W, W6)
// what to do with a long intent or display: the details belong where no listing shows them
const LONG_TEXT_HINT = ': every listing and match answer shows it to an agent, so it is one sentence; put the details in `why`, parameter descriptions or examples';

const YAML11_BOOLEANS = new Map([...['yes', 'on', 'y'].map((word) => [word, true] as const), ...['no', 'off', 'n'].map((word) => [word, false] as const)]);

function yamlBooleanHint(expected: string[], data: unknown): string {
  if (!expected.includes('boolean') || typeof data !== 'string') return '';
  const meant = YAML11_BOOLEANS.get(data.toLowerCase());
  return meant === undefined ? '' : `: YAML 1.2 (how this file is read) reads ${data} as text, not a boolean; write ${String(meant)}`;
}

// a `type` keyword whose allowed values are JSON Schema's types (a params schema's), not any field named `type`
function offersJsonTypes(error: ErrorObject, all: ErrorObject[], path: ReadonlyArray<string | number>): boolean {
  if (!isTypeKeywordPath(path)) return false;
  return all.some((other) => other.keyword === 'enum' && other.instancePath.startsWith(error.instancePath) && JSON_TYPES.every((type) => enumValues((other.params as { allowedValues?: unknown }).allowedValues).includes(type)));
}

// `argv:` with its list not indented under it (or nothing at all) is null to YAML: say so, not only what is expected (review userY, Y7)
function emptyHint(path: ReadonlyArray<string | number>, data: unknown, fromYaml: boolean): string {
  const key = path.at(-1);
  if (!fromYaml || data !== null || typeof key !== 'string') return '';
  return `: YAML read no value after '${key}:'; write it on that line, or on the lines below indented further than '${key}'`;
}

// a field named for its unit is a bare number of it: `timeout_ms: 30s` was told only "must be integer" (review userU, F9)
const UNITS: Record<string, string> = { _ms: 'milliseconds as a whole number, e.g. 30000 for 30 s', _bytes: 'bytes as a whole number, e.g. 1048576 for 1 MiB' };

function unitHint(path: readonly (string | number)[], expected: string[], data: unknown): string {
  const field = String(path.at(-1) ?? '');
  const unit = Object.keys(UNITS).find((suffix) => field.endsWith(suffix));
  if (unit === undefined || !expected.includes('integer') || typeof data !== 'string') return '';
  return `: ${UNITS[unit]}, not '${data.slice(0, 40)}'`;
}

// `examples: what day is it today` (a text where a top-level list is asked) is shown the list it would be; a block's
// fields (http.query) have their own hints (review userZ10, U10-6)
function listHint(path: readonly (string | number)[], expected: string[], data: unknown): string {
  if (expected.length !== 1 || expected[0] !== 'array' || (typeof data !== 'string' && typeof data !== 'number') || path.length !== 1) return '';
  const text = String(data).slice(0, 60);
  const item = /[,[\]{}:#"'&*!|>%@`]/.test(text) || text.trim() !== text ? JSON.stringify(text) : text;
  return `: a list, written as ${String(path.at(-1))}: [${item}] or with each item on its own line after '- '`;
}
