import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { BenchTool } from './bfcl-data.js';

// benchmark types are Python, Java and JavaScript spellings; TOOL.hdlp speaks JSON Schema
const JSON_TYPES: Record<string, string> = {
  string: 'string',
  String: 'string',
  integer: 'integer',
  long: 'integer',
  float: 'number',
  double: 'number',
  number: 'number',
  boolean: 'boolean',
  Boolean: 'boolean',
  array: 'array',
  Array: 'array',
  ArrayList: 'array',
  tuple: 'array',
  dict: 'object',
  HashMap: 'object',
  object: 'object',
};

/** The `TOOL.hdlp` a benchmark tool becomes: its description is the intent, its original name the display. */
export function toToolFile(tool: BenchTool, name: string): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const param of tool.params) {
    const property: Record<string, unknown> = {};
    const type = param.type === undefined ? undefined : JSON_TYPES[param.type];
    if (type !== undefined) property['type'] = type;
    if (param.description) property['description'] = param.description;
    if (Array.isArray(param.enum) && param.enum.length > 0) property['enum'] = param.enum;
    properties[param.name] = property;
    if (param.required === true) required.push(param.name);
  }
  return {
    name,
    display: tool.name,
    intent: tool.description.trim() || tool.name,
    method: 'exec',
    executor: 'gatekeeper',
    params_schema: { type: 'object', properties, required },
    author: 'bfcl-v4',
    created: '2024-01-01',
    // deliberately word-poor: every tool carries it, so it must not look like evidence
    why: 'BFCL v4',
  };
}

/** Writes the tools as `tools/<name>/TOOL.hdlp` folders into a fresh temporary repository; returns its path. */
export async function writeBenchRepository(tools: readonly BenchTool[], names: Map<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'hldp-bench-match-'));
  for (const tool of tools) {
    const name = names.get(tool.id)!;
    const folder = join(root, 'tools', name);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'TOOL.hdlp'), stringify(toToolFile(tool, name), { lineWidth: 0 }));
  }
  return root;
}
