import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, type JsonSchema, type ToolDefinition } from '../../../src/core/index.js';

/** A valid definition with the given fields replaced (constraints merged over the defaults). */
export function makeToolDefinition(overrides: Partial<Omit<ToolDefinition, 'constraints'>> & { constraints?: Partial<ToolDefinition['constraints']> } = {}): ToolDefinition {
  const { constraints, ...rest } = overrides;
  return {
    name: 'test-tool',
    display: 'test tool',
    intent: 'a tool made by a test',
    method: 'run',
    executor: 'shell',
    params_schema: { type: 'object', properties: {} },
    author: 'test',
    created: '2026-05-31',
    why: 'tests need one',
    aliases: [],
    examples: [],
    source: { path: 'tools/test-tool/TOOL.hdlp', oid: '0'.repeat(40) },
    ...rest,
    constraints: { timeout_ms: DEFAULT_TIMEOUT_MS, max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES, require_confirm: false, ...constraints },
  };
}

// The spec's shorthand {param: {type, required, ...}} as the JSON Schema the scanner would hand over.
function toJsonSchema(shorthand: Record<string, Record<string, unknown>>): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, { required: isRequired, ...property }] of Object.entries(shorthand)) {
    properties[name] = property;
    if (isRequired === true) required.push(name);
  }
  return { type: 'object', properties, required };
}

/** One of the starter tools in `native-repo/tools/`, read as the scanner would hand it to the executors. */
export function loadStarterTool(name: string): ToolDefinition {
  const path = fileURLToPath(new URL(`../../../native-repo/tools/${name}/TOOL.hdlp`, import.meta.url));
  const raw = parse(readFileSync(path, 'utf8')) as Record<string, unknown> & { params_schema: Record<string, Record<string, unknown>> };
  const { constraints, params_schema, executor, ...rest } = raw;
  return makeToolDefinition({
    ...(rest as Partial<ToolDefinition>),
    executor: executor === 'hlpd-api' ? 'hldp-api' : (executor as ToolDefinition['executor']),
    params_schema: toJsonSchema(params_schema),
    constraints: constraints as Partial<ToolDefinition['constraints']>,
    source: { path: `tools/${name}/TOOL.hdlp`, oid: '0'.repeat(40) },
  });
}
