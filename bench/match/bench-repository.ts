import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { BenchTool } from './bench-data.js';
import { benchFolder } from '../work-folder.js';

// benchmark types are JSON Schema, Python, Java and JavaScript spellings; TOOL.hdlp speaks JSON Schema.
// A type not listed here (`any`, a class name) is left out: the parameter then takes any value.
const JSON_TYPES: Record<string, string> = {
  string: 'string',
  str: 'string',
  char: 'string',
  integer: 'integer',
  int: 'integer',
  long: 'integer',
  short: 'integer',
  float: 'number',
  double: 'number',
  number: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  tuple: 'array',
  set: 'array',
  arraylist: 'array',
  dict: 'object',
  map: 'object',
  hashmap: 'object',
  object: 'object',
};

/**
 * The `TOOL.hdlp` a benchmark tool becomes: its description is the intent, its original name the
 * display (unless the file gives one), its author the file's (or `benchmark`).
 */
export function toToolFile(tool: BenchTool, name: string): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const param of tool.params) {
    const property: Record<string, unknown> = {};
    const type = param.type === undefined ? undefined : JSON_TYPES[param.type.toLowerCase()];
    if (type !== undefined) property['type'] = type;
    if (param.description) property['description'] = param.description;
    if (Array.isArray(param.enum) && param.enum.length > 0) property['enum'] = param.enum;
    properties[param.name] = property;
    if (param.required === true) required.push(param.name);
  }
  return {
    name,
    display: tool.display ?? tool.name,
    intent: tool.description.trim() || tool.name,
    method: 'exec',
    executor: 'gatekeeper',
    params_schema: { type: 'object', properties, required },
    author: tool.author ?? 'benchmark',
    created: '2024-01-01',
    // deliberately word-poor: every tool carries it, so it must not look like evidence
    why: 'benchmark',
    ...(tool.aliases?.length ? { aliases: tool.aliases } : {}),
    ...(tool.examples?.length ? { examples: tool.examples } : {}),
    ...(tool.group ? { group: tool.group } : {}),
  };
}

/** Writes the tools as `tools/<name>/TOOL.hdlp` folders into a fresh temporary repository; returns its path. */
export async function writeBenchRepository(tools: readonly BenchTool[], names: Map<string, string>): Promise<string> {
  const root = benchFolder('hldp-bench-match-');
  for (const tool of tools) {
    const name = names.get(tool.id)!;
    const folder = join(root, 'tools', name);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'TOOL.hdlp'), stringify(toToolFile(tool, name), { lineWidth: 0 }));
  }
  return root;
}
