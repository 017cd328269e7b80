import { nearWord } from '../core/index.js';

/** JSON Schema's type names, the only words its `type` takes. */
export const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

// the type names of the languages authors come from (Python's, Go's, TypeScript's): `type: int` is integer (review userY, Y7)
const TYPE_WORDS: Readonly<Record<string, string>> = {
  int: 'integer', integer: 'integer', long: 'integer', int32: 'integer', int64: 'integer', uint: 'integer',
  float: 'number', double: 'number', decimal: 'number', float64: 'number', number: 'number',
  str: 'string', string: 'string', text: 'string',
  bool: 'boolean', boolean: 'boolean',
  dict: 'object', map: 'object', object: 'object', record: 'object', hash: 'object',
  list: 'array', array: 'array', tuple: 'array', sequence: 'array', seq: 'array',
  none: 'null', nil: 'null', null: 'null',
};

/** The JSON Schema type a written word most likely means (`int` → integer, `strng` → string), if any. */
export function meantJsonType(word: string): string | undefined {
  const lower = word.trim().toLowerCase();
  return Object.hasOwn(TYPE_WORDS, lower) ? TYPE_WORDS[lower] : nearWord(lower, JSON_TYPES);
}

/**
 * `; did you mean 'integer'?` for a `type` that is no JSON Schema type (one word, or a list of them), or nothing when
 * no word is near one.
 */
export function jsonTypeHint(written: unknown): string {
  if (typeof written === 'string') {
    const meant = (JSON_TYPES as readonly string[]).includes(written) ? undefined : meantJsonType(written);
    return meant === undefined ? '' : `; did you mean '${meant}'?`;
  }
  if (!Array.isArray(written) || written.length === 0 || !written.every((item) => typeof item === 'string')) return '';
  const meant = written.map((item: string) => ((JSON_TYPES as readonly string[]).includes(item) ? item : meantJsonType(item)));
  if (meant.some((item) => item === undefined) || meant.every((item, index) => item === written[index])) return '';
  return `; did you mean [${meant.join(', ')}]?`;
}

/** Whether a path inside a schema ends at its `type` keyword (or an item of it), not at a property named `type`. */
export function isTypeKeywordPath(path: ReadonlyArray<string | number>): boolean {
  const at = typeof path.at(-1) === 'number' ? path.length - 2 : path.length - 1;
  if (at < 0 || path[at] !== 'type') return false;
  // `properties: {type: …}` names a property `type`: the keyword sits anywhere but right under a map of names
  return !SCHEMA_NAME_MAPS.has(String(path[at - 1] ?? ''));
}

const SCHEMA_NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'params_schema']);
