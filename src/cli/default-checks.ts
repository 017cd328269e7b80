import type { Diagnostic, JsonSchema, ToolDefinition, ToolIndex } from '../core/index.js';
import { createParamsValidator } from '../matcher/index.js';
import { YamlLocator, yamlModule, YAML_OPTIONS } from '../scanner/index.js';

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

/**
 * An error at each `default` of the given files' tools that the tool's own params schema refuses, located at the
 * default in the file (`texts`: each file's content by path).
 */
export function defaultsOutsideSchema(index: ToolIndex, given: ReadonlySet<string>, texts: ReadonlyMap<string, string>): Diagnostic[] {
  const validator = createParamsValidator();
  const found: Diagnostic[] = [];
  for (const tool of index.tools as ToolDefinition[]) {
    const names = defaulted(tool.params_schema);
    if (names.length === 0 || !given.has(tool.source.path)) continue;
    const checked = validator.validate(tool, {});
    if (checked.valid) continue;
    const wrong = new Map<string, string[]>();
    for (const problem of checked.problems) {
      const name = names.find((candidate) => problem.param === candidate || problem.param.startsWith(`${candidate}.`));
      if (name === undefined || problem.message === 'is required but missing') continue;
      wrong.set(name, [...(wrong.get(name) ?? []), problem.param === name ? problem.message : `'${problem.param}' ${problem.message}`]);
    }
    const locate = locator(texts.get(tool.source.path));
    for (const [name, reasons] of wrong) {
      const property = (tool.params_schema.properties as Record<string, JsonSchema>)[name]!;
      const { line, column } = locate(name);
      found.push({ file: tool.source.path, line, column, severity: 'error', code: 'DEFAULT_OUTSIDE_SCHEMA', message: `the default of parameter '${name}' (${JSON.stringify(property.default)}) does not satisfy its own schema: it ${reasons.join('; ')}. Every call that leaves '${name}' out would be refused as INVALID_PARAMS: change the default, or the schema` });
    }
  }
  return found;
}

// where `default` of a parameter is written: in the shorthand (params_schema.NAME.default) or a full schema
// (params_schema.properties.NAME.default); the file's first line when the text is not at hand
function locator(text: string | undefined): (name: string) => { line: number; column: number } {
  if (text === undefined) return () => ({ line: 1, column: 1 });
  const { LineCounter, parseDocument } = yamlModule();
  const lineCounter = new LineCounter();
  const positions = new YamlLocator(parseDocument(text, { lineCounter, ...YAML_OPTIONS }), lineCounter);
  return (name) => {
    const full = positions.locate(['params_schema', 'properties', name, 'default'], true);
    const shorthand = positions.locate(['params_schema', name, 'default'], true);
    // the path not written falls back to an ancestor, which comes before the default in the text
    return full.line > shorthand.line || (full.line === shorthand.line && full.column >= shorthand.column) ? full : shorthand;
  };
}
