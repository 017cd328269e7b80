import type { Diagnostic, JsonSchema, ToolDefinition } from '../core/index.js';
import type { ParamsValidator } from '../matcher/index.js';
import { countedDocument, documentJS, normaliseParamsSchema, withDuplicateKeys } from '../scanner/index.js';
import type { SchemaPlace } from './params-schema-checks.js';

// A parameter's `default` is what every call that leaves it out is checked with (ajv's useDefaults), so a default its
// own schema refuses (`enum: [fast, slow], default: medium`) fails each such call as INVALID_PARAMS, the caller blamed
// for a value it never sent (review userW, W1). `hldp validate` asks the gateway's own params validator what a call
// with no params makes of each default; the scan does not (a compiled checker per tool with a default would cost a
// 100,000-tool cold scan seconds), so this is the author's gate.

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The top-level parameters of a params schema that declare a `default`. */
function defaulted(schema: JsonSchema): string[] {
  const properties = schema.properties;
  if (!isSchema(properties)) return [];
  return Object.entries(properties).filter(([, property]) => isSchema(property) && Object.hasOwn(property, 'default')).map(([name]) => name);
}

/** An error at each `default` of a tool that its own params schema refuses, located at the default in the file. */
export function defaultsOutsideSchema(tool: ToolDefinition, validator: ParamsValidator, place: SchemaPlace): Diagnostic[] {
  const names = defaulted(tool.params_schema);
  if (names.length === 0) return [];
  const checked = validator.validate(tool, {});
  if (checked.valid) return [];
  const wrong = new Map<string, string[]>();
  for (const problem of checked.problems) {
    const name = names.find((candidate) => problem.param === candidate || problem.param.startsWith(`${candidate}.`));
    if (name === undefined || problem.message === 'is required but missing') continue;
    wrong.set(name, [...(wrong.get(name) ?? []), problem.param === name ? problem.message : `'${problem.param}' ${problem.message}`]);
  }
  return [...wrong].map(([name, reasons]) => {
    const property = (tool.params_schema.properties as Record<string, JsonSchema>)[name]!;
    const { line, column } = place(['properties', name, 'default'], true);
    return { file: tool.source.path, line, column, severity: 'error', code: 'DEFAULT_OUTSIDE_SCHEMA', message: `the default of parameter '${name}' (${JSON.stringify(property.default)}) does not satisfy its own schema: it ${reasons.join('; ')}. Every call that leaves '${name}' out would be refused as INVALID_PARAMS: change the default, or the schema` };
  });
}

/**
 * The defaults a broken tool's own schemas refuse, each parameter judged alone: a `type: int` on one parameter left
 * the tool out of the index, and so unchecked, and an unrelated `enum` refusing another's `default` came only in the
 * next run, after the first was fixed (review userZ5, F2). A parameter with a problem of its own, or whose schema
 * cannot be compiled alone (a `$ref` elsewhere), is left to that problem's error.
 */
export function brokenToolDefaults(path: string, text: string, validator: ParamsValidator, place: SchemaPlace): Diagnostic[] {
  let written: unknown;
  try {
    // yaml's own duplicate-key check is quadratic in a mapping's keys (review Z14, Z14-3): the linear one, same errors;
    // a text nested past, or of more values than, what yaml is let build is its definition's error alone (review
    // Z15-3, Z18-3)
    const counted = countedDocument(text, { uniqueKeys: false });
    if ('refused' in counted) return [];
    const { document } = counted;
    withDuplicateKeys(document);
    if (document.errors.length > 0) return [];
    written = documentJS(document);
  } catch {
    return [];
  }
  const params = isSchema(written) ? written.params_schema : undefined;
  if (!isSchema(params) || !Object.values(params).every(isSchema) && params.type !== 'object') return [];
  let normalised: ReturnType<typeof normaliseParamsSchema>;
  try {
    normalised = normaliseParamsSchema(params);
  } catch {
    return [];
  }
  // the parameter each problem is in: `params_schema.x…` in the shorthand, `params_schema.properties.x…` in full
  const shorthand = params.type !== 'object';
  const flawed = new Set([...normalised.problems, ...normalised.patternProblems, ...normalised.costProblems].map(({ path: at }) => (shorthand ? at[1] : at[1] === 'properties' ? at[2] : undefined)));
  const { schema } = normalised;
  const found: Diagnostic[] = [];
  for (const name of defaulted(schema)) {
    if (flawed.has(name)) continue;
    const alone = { type: 'object', properties: { [name]: (schema.properties as Record<string, JsonSchema>)[name] }, ...(schema.$defs === undefined ? {} : { $defs: schema.$defs }) } as JsonSchema;
    const tool = { name: `${path}#${name}`, source: { path, oid: '' }, params_schema: alone } as unknown as ToolDefinition;
    if (validator.unusable(tool) !== undefined) continue;
    found.push(...defaultsOutsideSchema(tool, validator, place));
  }
  return found;
}
