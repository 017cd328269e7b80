import type { Ajv2020 } from 'ajv/dist/2020.js';
import { nearWord, paramsCompileCost, paramsSchemaCost, type JsonSchema } from '../core/index.js';
import { ajv2020 } from './ajv-module.js';
import { isUnsupportedConstruct, re2Matches, re2Problem, re2ProgramSize } from './re2-refusal.js';
import { metaSchemaProblems, requiredFlags } from './schema-meta-problems.js';
import type { SchemaProblem } from './shape-checker.js';

/** Every keyword of JSON Schema 2020-12 (plus `definitions`): anything else in a params schema is a typo. */
const KNOWN_KEYWORDS = new Set([
  '$schema', '$id', '$ref', '$anchor', '$dynamicRef', '$dynamicAnchor', '$vocabulary', '$comment', '$defs', 'definitions',
  'prefixItems', 'items', 'contains', 'additionalProperties', 'properties', 'patternProperties', 'dependentSchemas',
  'propertyNames', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not', 'unevaluatedItems', 'unevaluatedProperties',
  'type', 'const', 'enum', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties',
  'minProperties', 'required', 'dependentRequired', 'title', 'description', 'default', 'deprecated', 'readOnly',
  'writeOnly', 'examples', 'format', 'contentEncoding', 'contentMediaType', 'contentSchema',
]);
// `; did you mean 'required'?` after a keyword one edit or two from a known one
function meantKeyword(keyword: string): string {
  const near = nearWord(keyword, [...KNOWN_KEYWORDS]);
  return near === undefined ? '' : `; did you mean '${near}'?`;
}
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_KEYWORDS = new Set([
  'items', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not',
  'unevaluatedItems', 'unevaluatedProperties', 'contentSchema',
]);
const SCHEMA_LIST_KEYWORDS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);

/** A params schema turned into real JSON Schema, with problems located in the `TOOL.hdlp` text. */
export interface NormalisedParams {
  schema: JsonSchema;
  problems: SchemaProblem[];
  /** `pattern`s (and `patternProperties` keys) that RE2, the engine params are checked with, cannot compile */
  patternProblems: SchemaProblem[];
  /** a schema ajv could not check in time linear in the params (a recursion through two branches of a combinator) */
  costProblems: SchemaProblem[];
}

// one meta-schema validator for every definition: compiling per tool would cost milliseconds each; made at the first
// definition parsed, not when the scanner loads (a start from a warm cache parses none)
let metaValidator: Ajv2020 | undefined;

/** Turns the spec's shorthand `{param: {type, required, description, ...}}` (or a full object schema) into JSON Schema. */
export function normaliseParamsSchema(written: Record<string, unknown>): NormalisedParams {
  const shorthand = written.type !== 'object';
  const schema = shorthand ? fromShorthand(written) : { ...written };
  // where a problem in the normalised schema sits in the written one
  const toWritten = (path: Array<string | number>): Array<string | number> =>
    shorthand && path[0] === 'properties' ? ['params_schema', ...path.slice(1)] : ['params_schema', ...path];
  const problems: SchemaProblem[] = [];
  for (const unknown of unknownKeywords(schema, [])) {
    problems.push({
      path: toWritten(unknown),
      atKey: true,
      // a typo is told the keyword it most likely meant, as `type: int` is (userZ7, F5)
      message: `unknown JSON Schema keyword '${String(unknown.at(-1))}' in 'params_schema'${meantKeyword(String(unknown.at(-1)))}`,
    });
  }
  problems.push(...metaCheck(schema, toWritten));
  const patternProblems = unsupportedPatterns(schema, []).map(({ path, atKey, pattern, reason }) => ({
    path: toWritten(path),
    atKey,
    message: patternMessage(pattern, reason),
  }));
  // named as the author wrote them: a shorthand's `properties.x` is `params_schema.x`
  const cost = paramsSchemaCost(schema, { matches: re2Matches, describe: (path) => toWritten(path).join('.') }).problem;
  const costProblems = cost === undefined ? [] : [{ path: toWritten(cost.path), atKey: false, message: cost.message }];
  // ajv compiles the schema on the event loop at the tool's first call: one too large to compile quickly is refused here
  const compile = paramsCompileCost(schema, { programSize: re2ProgramSize, describe: (path) => toWritten(path).join('.') }).problem;
  if (compile !== undefined) costProblems.push({ path: toWritten(compile.path), atKey: false, message: compile.message });
  return { schema: problems.length ? asMeant(schema) : schema, problems, patternProblems, costProblems };
}

/** Meta-validates a schema written at `field` of a definition (`output_schema`): its problems, at their lines. */
export function jsonSchemaProblems(schema: Record<string, unknown>, field: string): SchemaProblem[] {
  return metaCheck(schema, (path) => [field, ...path]);
}

// the meta-schema's problems with a written schema. A `$schema` naming another draft (draft-07, the usual copied
// line) made ajv throw, reported as a bug of ours and the tool dropped (review userZ2, U1): it is told at its line,
// and the rest of the schema is checked as 2020-12
function metaCheck(schema: Record<string, unknown>, toWritten: (path: Array<string | number>) => Array<string | number>): SchemaProblem[] {
  // allErrors: a file's independent errors come in one run (README), two bad keywords on one property too (review W, W6)
  metaValidator ??= new (ajv2020())({ strict: false, validateFormats: false, allErrors: true });
  const problems: SchemaProblem[] = [];
  let checked = schema;
  if (schema.$schema !== undefined && !isDraft2020(schema.$schema)) {
    problems.push({
      path: toWritten(['$schema']),
      atKey: false,
      message: `$schema '${String(schema.$schema)}' is not JSON Schema 2020-12, which this gateway reads; remove the line or set it to ${DRAFT_2020}`,
    });
    const { $schema: _other, ...rest } = schema;
    checked = rest;
  }
  if (!metaValidator.validateSchema(checked)) problems.push(...metaSchemaProblems(checked, metaValidator.errors ?? [], toWritten));
  return problems;
}

const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

function isDraft2020(declared: unknown): boolean {
  return typeof declared === 'string' && declared.replace(/#$/, '') === DRAFT_2020;
}

// a refused schema as its author meant it, for the checks that read it beside the refusal: `required: true` on a
// property (an old draft's habit) makes it required, so its argv element is not also told it may be left out
function asMeant(schema: JsonSchema): JsonSchema {
  const flagged = requiredFlags(schema).filter((flag) => flag.object.length === 0 && flag.required).map((flag) => flag.property);
  if (flagged.length === 0) return schema;
  const listed = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  return { ...schema, required: [...new Set([...listed, ...flagged])] };
}

/** Every `pattern` and `patternProperties` key in schema positions that RE2 refuses. */
function unsupportedPatterns(schema: unknown, path: Array<string | number>): Array<{ path: Array<string | number>; atKey: boolean; pattern: string; reason: string }> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const found: Array<{ path: Array<string | number>; atKey: boolean; pattern: string; reason: string }> = [];
  const check = (pattern: string, at: Array<string | number>, atKey: boolean): void => {
    const reason = re2Problem(pattern);
    if (reason !== undefined) found.push({ path: at, atKey, pattern, reason });
  };
  for (const [keyword, value] of Object.entries(schema)) {
    const here = [...path, keyword];
    if (keyword === 'pattern' && typeof value === 'string') check(value, here, false);
    else if (keyword === 'patternProperties' && value && typeof value === 'object') {
      for (const [pattern, item] of Object.entries(value)) {
        check(pattern, [...here, pattern], true);
        found.push(...unsupportedPatterns(item, [...here, pattern]));
      }
    } else if (SCHEMA_KEYWORDS.has(keyword)) found.push(...unsupportedPatterns(value, here));
    else if (SCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) value.forEach((item, index) => found.push(...unsupportedPatterns(item, [...here, index])));
    else if (SCHEMA_MAP_KEYWORDS.has(keyword) && value && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) found.push(...unsupportedPatterns(item, [...here, name]));
    }
  }
  return found;
}

// the look-around advice only where it applies; a pattern JavaScript refuses as well is simply malformed (userU, F3)
function patternMessage(pattern: string, reason: string): string {
  const engine = 'cannot run on RE2, the linear-time engine params are checked with';
  if (isUnsupportedConstruct(reason)) return `pattern '${pattern}' ${engine} (${reason}); rewrite it without look-around or back-references`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return `pattern '${pattern}' is not a valid regular expression (${reason})`;
  }
  return `pattern '${pattern}' ${engine} (${reason}); rewrite it in the syntax RE2 and JavaScript share`;
}

function fromShorthand(written: Record<string, unknown>): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, declaration] of Object.entries(written)) {
    const { required: isRequired, ...keywords } = declaration as Record<string, unknown>;
    if (isRequired === true) required.push(name);
    properties[name] = keywords;
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

function unknownKeywords(schema: unknown, path: Array<string | number>): Array<Array<string | number>> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const found: Array<Array<string | number>> = [];
  for (const [keyword, value] of Object.entries(schema)) {
    const here = [...path, keyword];
    if (!KNOWN_KEYWORDS.has(keyword)) found.push(here);
    else if (SCHEMA_KEYWORDS.has(keyword)) found.push(...unknownKeywords(value, here));
    else if (SCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
      value.forEach((item, index) => found.push(...unknownKeywords(item, [...here, index])));
    } else if (SCHEMA_MAP_KEYWORDS.has(keyword) && value && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) found.push(...unknownKeywords(item, [...here, name]));
    }
  }
  return found;
}
