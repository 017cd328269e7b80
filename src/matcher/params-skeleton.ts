import { mapHidden, shellWord, type JsonSchema } from '../core/index.js';

/**
 * The `--params` argument of `hldp call` for a tool, as one shell word to paste: its required parameters as a JSON
 * object, each with a value of its type to fill in (`'{"city": "…"}'`; review userZ10, U10-15: the hint said
 * `'{...}'` two lines under `params: { city: string }`). A parameter's name comes from a definition anyone with push
 * access writes: it is a JSON string whose hidden characters and controls are `\u` escapes (the same key to a JSON
 * reader, nothing a terminal acts on), inside single quotes where each `'` is `'\''`, so no name ends the word.
 */
export function paramsSkeleton(schema: JsonSchema): string {
  const properties = record(schema['properties']);
  const required = Array.isArray(schema['required']) ? [...new Set(schema['required'].filter((name): name is string => typeof name === 'string'))] : [];
  const fields = required.map((name) => `${jsonText(name)}: ${placeholder(record(Object.hasOwn(properties, name) ? properties[name] : undefined))}`);
  return shellWord(fields.length === 0 ? '{}' : `{${fields.join(', ')}}`);
}

// a value of the parameter's type: its first choice where it lists them, else what marks a value to fill in
function placeholder(property: Record<string, unknown>): string {
  const choices = property['enum'];
  if (Array.isArray(choices) && choices.length > 0) return jsonText(choices[0]);
  const type = Array.isArray(property['type']) ? property['type'][0] : property['type'];
  switch (type) {
    case 'integer':
    case 'number':
      return typeof property['minimum'] === 'number' ? jsonText(property['minimum']) : '0';
    case 'boolean':
      return 'false';
    case 'array':
      return '[]';
    case 'object':
      return '{}';
    default:
      return '"…"';
  }
}

// JSON.stringify escapes the C0 controls; every other character a terminal acts on or a reader does not see (C1
// controls, bidi and zero-width characters, line separators, lone surrogates) is escaped here as JSON reads it back
function jsonText(value: unknown): string {
  return mapHidden(JSON.stringify(value) ?? 'null', unitEscapes, undefined, 'all');
}

// each UTF-16 unit as `\uXXXX`: an astral character as its surrogate pair, as JSON writes it
function unitEscapes(character: string): string {
  let out = '';
  for (let index = 0; index < character.length; index += 1) out += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`;
  return out;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
