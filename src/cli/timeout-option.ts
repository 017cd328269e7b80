import type { ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

/** `--timeout MS`: the call's own deadline (spec §3: a long task sets its timeout explicitly). */
export const TIMEOUT_OPTION = { timeout: { type: 'string', short: 't' } } as const satisfies NonNullable<ParseArgsConfig['options']>;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--timeout` as the gateway's call option: milliseconds, or a whole number of `ms`, `s`, `m` or `h`. */
export function parseTimeout(value: string | boolean | undefined): { timeoutMs?: number } {
  if (value === undefined) return {};
  const match = typeof value === 'string' ? /^(\d{1,9})(ms|s|m|h)?$/.exec(value.trim()) : null;
  const timeoutMs = match ? Number(match[1]) * UNITS[match[2] ?? 'ms']! : 0;
  if (!match || timeoutMs < 1) throw new UsageError(`--timeout must be a positive whole number of milliseconds, or of s, m or h (e.g. --timeout 120000 or --timeout 2m); got '${String(value)}'`);
  return { timeoutMs };
}
