import { createHash } from 'node:crypto';

/** JSON text of one value with object keys in code-point order; undefined (and functions) dropped from objects, null in arrays, as JSON.stringify does. */
function write(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return write((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  // built by hand: a JS object lists integer-like keys ("2", "10") first, whatever order they were added in
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const text = write((value as Record<string, unknown>)[key]);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/** JSON with object keys sorted (code-point order) at every depth, no spaces, undefined members left out: equal params, equal text. */
export function canonicalJson(value: unknown): string {
  return write(value) ?? 'null';
}

/** SHA-256 (hex) of the canonical JSON of the params. */
export function hashParams(params: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(params)).digest('hex');
}
