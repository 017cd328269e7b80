import type { JsonSchema } from '../core/index.js';

/** A params schema on one line, TypeScript-like: `{ cmd: string, cwd?: string, limit?: integer 1..500 = 10 }`. */
export function compactSchema(schema: JsonSchema): string {
  const properties = asRecord(schema['properties']);
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
  const parts = Object.entries(properties).map(([name, property]) => {
    const optional = required.has(name) ? '' : '?';
    return `${name}${optional}: ${describeType(asRecord(property))}`;
  });
  return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
}

function describeType(property: Record<string, unknown>): string {
  const choices = property['enum'];
  let text = Array.isArray(choices)
    ? choices.map((choice) => JSON.stringify(choice)).join(' | ')
    : Array.isArray(property['type'])
      ? property['type'].join(' | ')
      : typeof property['type'] === 'string'
        ? property['type']
        : 'any';
  if (property['type'] === 'array') {
    const items = asRecord(property['items']);
    if (typeof items['type'] === 'string') text = `${items['type']}[]`;
  }
  const range = describeRange(property);
  if (range !== '') text += ` ${range}`;
  if (typeof property['pattern'] === 'string') text += ` matching /${property['pattern']}/`;
  if (property['default'] !== undefined) text += ` = ${JSON.stringify(property['default'])}`;
  return text;
}

function describeRange(property: Record<string, unknown>): string {
  const [low, high] = [property['minimum'], property['maximum']];
  if (typeof low === 'number' && typeof high === 'number') return `${low}..${high}`;
  if (typeof low === 'number') return `>= ${low}`;
  if (typeof high === 'number') return `<= ${high}`;
  const minLength = property['minLength'];
  if (typeof minLength !== 'number' || minLength <= 0) return '';
  return minLength === 1 ? '(non-empty)' : `(at least ${minLength} characters)`;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
