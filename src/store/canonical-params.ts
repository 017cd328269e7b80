import { createHash } from 'node:crypto';

function canonicalize(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalize((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value)) return value.map(canonicalize);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) sorted[key] = canonicalize(item);
  }
  return sorted;
}

/** JSON with object keys sorted at every depth, no spaces, undefined members left out: equal params, equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value)) ?? 'null';
}

/** SHA-256 (hex) of the canonical JSON of the params. */
export function hashParams(params: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(params)).digest('hex');
}
