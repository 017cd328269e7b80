import type { JsonSchema, ToolDefinition } from '../core/index.js';

/** `name(required, optional?)`: the arguments on one line, no schema (seed 000 §10: short and sharp). */
export function signature(name: string, schema: JsonSchema): string {
  const properties = Object.keys((schema['properties'] ?? {}) as Record<string, unknown>);
  const required = new Set((schema['required'] ?? []) as string[]);
  const ordered = [...properties.filter((property) => required.has(property)), ...properties.filter((property) => !required.has(property))];
  return `${name}(${ordered.map((property) => (required.has(property) ? property : `${property}?`)).join(', ')})`;
}

/** A tool's mode markers: facts about how a call goes that no shortening may hide. */
export function toolMarkers(tool: ToolDefinition): string[] {
  return tool.constraints.require_confirm ? ['[needs confirmation]'] : [];
}

/** The first line of a text, trimmed: descriptions in the block are one line each. */
export function oneLine(text: string): string {
  return text.split(/\r?\n/, 1)[0]!.trim();
}

/** One tool as one line of a toolset's registry: `name(args) [markers] — intent`; `markers` as the caller's view gives them. */
export function signatureLine(tool: ToolDefinition, listedName = tool.name, markers: readonly string[] = toolMarkers(tool)): string {
  return `${signature(listedName, tool.params_schema)}${markers.map((marker) => ` ${marker}`).join('')} — ${oneLine(tool.intent)}`;
}
