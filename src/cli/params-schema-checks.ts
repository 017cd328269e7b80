import { nearWord, schemaGraph, type Diagnostic, type JsonSchema, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { createParamsValidator, PARAMS_FORMATS, type ParamsValidator } from '../matcher/index.js';
import { countedDocument, documentJS, type Position } from '../scanner/index.js';
import { brokenToolDefaults, defaultsOutsideSchema } from './default-checks.js';

// The scan checks a params schema against JSON Schema's meta-schema, but does not compile it: ajv's compile costs
// ~1 ms a tool, seconds for a large registry's cold scan. So a schema the gateway cannot compile (a `$ref` to nothing)
// passed validate and serve, and every call of it was refused; a `format` ajv does not know was ignored, checking
// nothing (review userY, Y6). `hldp validate` compiles each tool's schema with the gateway's own validator, under the
// same compile-cost bound, so this is the author's gate.

// a tool's definition file, wherever the registry's root is
const TOOL_FILE = /(^|\/)tools\/[^/]+\/TOOL\.hdlp$/;

/** Where a place in a tool's normalised params schema is written in its file. */
export type SchemaPlace = (path: ReadonlyArray<string | number>, key?: boolean) => Position;

/**
 * Errors of the given files' tools that only the gateway's params validator finds: a schema it cannot compile, a
 * `format` it does not know, a `default` the schema refuses (`texts`: each file's content by path). A file in
 * `refused` (refused for its size: `YAML_RESOURCE_LIMIT`) is not read again: yaml would build it whole, 40 s and 1 GB
 * for 330,000 values, and its aliases made yaml throw out of validate with no file named (review Z19, Z19-5).
 */
export function gatewaySchemaProblems(index: ToolIndex, given: ReadonlySet<string>, texts: ReadonlyMap<string, string>, refused: ReadonlySet<string> = new Set()): Diagnostic[] {
  const validator = createParamsValidator();
  const found: Diagnostic[] = [];
  for (const tool of index.tools as ToolDefinition[]) {
    if (!given.has(tool.source.path)) continue;
    const place = schemaPlace(texts.get(tool.source.path));
    found.push(...compileProblems(tool, validator, place), ...unknownFormats(tool, place));
  }
  // a broken tool is not in the index: its defaults are judged from its text, each parameter alone (review userZ5, F2)
  const served = new Set((index.tools as ToolDefinition[]).map((tool) => tool.source.path));
  for (const path of given) {
    const text = texts.get(path);
    // nor is a text nested past, or of more values than, what yaml is let build (brokenToolDefaults: countedDocument):
    // its definition's error says so (review Z15-3, Z18-3)
    if (served.has(path) || refused.has(path) || text === undefined || !TOOL_FILE.test(path)) continue;
    found.push(...brokenToolDefaults(path, text, validator, schemaPlace(text)));
  }
  return found;
}

function compileProblems(tool: ToolDefinition, validator: ParamsValidator, place: SchemaPlace): Diagnostic[] {
  const unusable = validator.unusable(tool);
  if (unusable === undefined) return defaultsOutsideSchema(tool, validator, place);
  const reference = unusable.ref === undefined ? undefined : schemaGraph(tool.params_schema).find((node) => node.schema.$ref === unusable.ref || node.schema.$dynamicRef === unusable.ref);
  const at = reference === undefined ? place([], true) : place([...reference.path, reference.schema.$ref === unusable.ref ? '$ref' : '$dynamicRef']);
  const message = `the gateway cannot compile this params schema: ${unusable.reason}. Every call would be refused`;
  return [{ file: tool.source.path, ...at, severity: 'error', code: 'INVALID_PARAMS_SCHEMA', message }];
}

// an MCP server checks its own params and `hldp import mcp --force` writes its schema back: a warning there
function unknownFormats(tool: ToolDefinition, place: SchemaPlace): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const node of schemaGraph(tool.params_schema)) {
    const format = node.schema.format;
    if (typeof format !== 'string' || PARAMS_FORMATS.includes(format)) continue;
    const near = nearWord(format, PARAMS_FORMATS);
    const message = `unknown format '${format}': the gateway checks nothing for it${near === undefined ? '.' : `; did you mean '${near}'?`} Known formats: ${PARAMS_FORMATS.join(', ')}`;
    found.push({ file: tool.source.path, ...place([...node.path, 'format']), severity: tool.executor === 'mcp' ? 'warning' : 'error', code: 'INVALID_PARAMS_SCHEMA', message });
  }
  return found;
}

/**
 * Where a normalised schema's path is written: `params_schema.properties.x` is `params_schema.x` in the shorthand
 * (whose `type` is not `object`, as the scanner reads it); the file's first line when the text is not at hand, or
 * yaml cannot build it (more aliases than it takes). The text is parsed at the first place asked for, not before:
 * most tools have no problem to place (review Z19, Z19-5).
 */
function schemaPlace(text: string | undefined): SchemaPlace {
  const first = (): Position => ({ line: 1, column: 1 });
  if (text === undefined) return first;
  let located: SchemaPlace | undefined;
  return (path, key = false) => {
    located ??= locator(text) ?? first;
    return located(path, key);
  };
}

function locator(text: string): SchemaPlace | undefined {
  try {
    // positions only: yaml's own duplicate-key check, quadratic in a mapping's keys, is left out (review Z14, Z14-3)
    const counted = countedDocument(text, { uniqueKeys: false });
    if ('refused' in counted) return undefined;
    const { document, locator: positions } = counted;
    const shorthand = (documentJS(document) as { params_schema?: JsonSchema } | null)?.params_schema?.type !== 'object';
    return (path, key = false) => {
      const written = shorthand && path[0] === 'properties' ? path.slice(1) : path;
      return positions.locate(['params_schema', ...written], key);
    };
  } catch {
    return undefined;
  }
}
