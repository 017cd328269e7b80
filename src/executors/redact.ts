import type { ExecutionResult } from '../core/index.js';

/** What stands in for a secret found in a result. */
export const REDACTED = '[REDACTED]';

// Short values would blank out ordinary words; a real token is longer than this.
const SHORTEST_SECRET = 8;

/** The result with every occurrence of a secret in `output`, `error`, `stderr` and any string of `structured_content` replaced by `[REDACTED]`. */
export function redactSecrets(result: ExecutionResult, secrets: readonly string[]): ExecutionResult {
  const applicable = [...new Set(secrets)].filter((secret) => secret.length >= SHORTEST_SECRET).sort((a, b) => b.length - a.length);
  if (applicable.length === 0) return result;
  const scrub = (text: string): string => applicable.reduce((scrubbed, secret) => scrubbed.split(secret).join(REDACTED), text);
  return {
    ...result,
    output: scrub(result.output),
    stderr: scrub(result.stderr),
    error: result.error === null ? null : scrub(result.error),
    ...(result.structured_content === undefined ? {} : { structured_content: scrubStrings(result.structured_content, scrub) as Record<string, unknown> }),
  };
}

/** A JSON value with every secret inside its strings (keys included) replaced by `[REDACTED]`: params as a receipt or a record keeps them. */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  const applicable = [...new Set(secrets)].filter((secret) => secret.length >= SHORTEST_SECRET).sort((a, b) => b.length - a.length);
  if (applicable.length === 0) return value;
  const scrub = (text: string): string => applicable.reduce((scrubbed, secret) => scrubbed.split(secret).join(REDACTED), text);
  return scrubStrings(value, scrub) as T;
}

// every string in a JSON value, keys included, passed through `scrub`
function scrubStrings(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubStrings(item, scrub));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), scrubStrings(item, scrub)]));
}
