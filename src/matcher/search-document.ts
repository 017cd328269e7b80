import type { JsonSchema, ToolDefinition } from '../core/index.js';
import { analyze } from './analyze.js';
import { withoutValues } from './value-words.js';

/** The searchable fields of a tool: everything its author wrote about it. */
export const SEARCH_FIELDS = [
  'name',
  'display',
  'intent',
  'aliases',
  'examples',
  'why',
  'group',
  'param_names',
  'param_text',
] as const;

/** One searchable field. */
export type SearchField = (typeof SEARCH_FIELDS)[number];

/**
 * The fields that share one boost. The first stage indexes and scores every field on its own; the groups
 * are the tie the benchmark forces (it has no display names, aliases, examples, why or group to
 * measure them by): display names and aliases are names, examples say what a tool does like its
 * intent, and why and group are background like its parameters.
 */
export const FIELD_GROUPS = {
  naming: ['name', 'display', 'aliases'],
  describing: ['intent', 'examples'],
  details: ['param_names', 'param_text', 'why', 'group'],
} as const satisfies Record<string, readonly SearchField[]>;

/** One group of fields with a common boost. */
export type FieldGroup = keyof typeof FIELD_GROUPS;

/** A tool as the search index sees it: the text of each field. */
export type SearchDocument = Record<SearchField, string>;

/** Collects what an author wrote about a tool into search fields. */
export function toSearchDocument(tool: ToolDefinition): SearchDocument {
  const names: string[] = [];
  const texts: string[] = [];
  collectParams(tool.params_schema, names, texts, 0);
  return {
    name: tool.name,
    display: displayAddsWords(tool) ? tool.display : '',
    intent: tool.intent,
    aliases: tool.aliases.join('\n'),
    examples: tool.examples.map(withoutValues).join('\n'),
    why: tool.why,
    group: tool.group ?? '',
    param_names: names.join('\n'),
    param_text: texts.join('\n'),
  };
}

// a display that only repeats the name would count the name twice
function displayAddsWords(tool: ToolDefinition): boolean {
  const nameTerms = new Set(analyze(tool.name));
  return analyze(tool.display).some((term) => !nameTerms.has(term));
}

const MAX_DEPTH = 2;

function collectParams(schema: JsonSchema, names: string[], texts: string[], depth: number): void {
  const properties = schema['properties'];
  if (isRecord(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      names.push(name);
      if (isRecord(property)) collectParam(property, names, texts, depth);
    }
  }
  const items = schema['items'];
  if (isRecord(items) && depth < MAX_DEPTH) collectParams(items, names, texts, depth + 1);
}

function collectParam(property: JsonSchema, names: string[], texts: string[], depth: number): void {
  for (const key of ['title', 'description']) {
    const value = property[key];
    if (typeof value === 'string') texts.push(value);
  }
  const choices = property['enum'];
  if (Array.isArray(choices)) texts.push(choices.filter((choice) => typeof choice === 'string').join(' '));
  if (depth < MAX_DEPTH) collectParams(property, names, texts, depth + 1);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
