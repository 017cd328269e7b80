import type { ExecutionResult } from '../core/index.js';
import { cutPartialSecrets } from './secrets-at-cut.js';

/** What stands in for a secret found in a result. */
export const REDACTED = '[REDACTED]';

// Short values would blank out ordinary words; a real token is longer than this.
const SHORTEST_SECRET = 8;

/** The secrets redaction looks for: each once, none shorter than a real token, the longest first. */
export function applicableSecrets(secrets: readonly string[]): string[] {
  return [...new Set(secrets)].filter((secret) => secret.length >= SHORTEST_SECRET).sort((a, b) => b.length - a.length);
}

/**
 * The result with every occurrence of a secret in `output`, `error`, `stderr` and any string of `structured_content`
 * or `attachments` replaced by `[REDACTED]`; where the output cap cut a secret in two, the part left beside the cut is cut too (and counted).
 */
export function redactSecrets(result: ExecutionResult, secrets: readonly string[]): ExecutionResult {
  const applicable = applicableSecrets(secrets);
  if (applicable.length === 0) return result;
  const scrub = (text: string): string => applicable.reduce((scrubbed, secret) => scrubbed.split(secret).join(REDACTED), text);
  // a marker in a result nothing was cut from is the tool's own text: nothing to trim beside it (found in review)
  const trimmed = (text: string): { text: string; cutBytes: number } => (result.cut_bytes > 0 ? cutPartialSecrets(text, applicable) : { text, cutBytes: 0 });
  const output = trimmed(scrub(result.output));
  const stderr = trimmed(scrub(result.stderr));
  // an error cut to the cap (an HTTP error's body) is counted in cut_bytes as output is: so is what is trimmed beside its marker
  const error = result.error === null ? null : trimmed(scrub(result.error));
  return {
    ...result,
    output: output.text,
    stderr: stderr.text,
    error: error === null ? null : error.text,
    cut_bytes: result.cut_bytes + output.cutBytes + stderr.cutBytes + (error?.cutBytes ?? 0),
    ...(result.structured_content === undefined ? {} : { structured_content: scrubStrings(result.structured_content, scrub) as Record<string, unknown> }),
    ...(result.attachments === undefined ? {} : { attachments: scrubStrings(result.attachments, scrub) as typeof result.attachments }),
  };
}

/** A JSON value with every secret inside its strings (keys included) replaced by `[REDACTED]`: params as a receipt or a record keeps them. */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  const applicable = applicableSecrets(secrets);
  if (applicable.length === 0) return value;
  const scrub = (text: string): string => applicable.reduce((scrubbed, secret) => scrubbed.split(secret).join(REDACTED), text);
  return scrubStrings(value, scrub) as T;
}

/**
 * Which of the named secrets a JSON value's strings (keys included) hold, as `redactValue` would replace them: their
 * settings, each once, never a value (what an approver is told the `[REDACTED]` in a call's params stands for).
 */
export function secretsIn(value: unknown, named: ReadonlyArray<{ setting: string; value: string }>): string[] {
  const applicable = new Set(applicableSecrets(named.map((entry) => entry.value)));
  if (applicable.size === 0) return [];
  const texts: string[] = [];
  scrubStrings(value, (text) => {
    texts.push(text);
    return text;
  });
  const held = named.filter((entry) => applicable.has(entry.value) && texts.some((text) => text.includes(entry.value)));
  return [...new Set(held.map((entry) => entry.setting))];
}

// every string in a JSON value, keys included, passed through `scrub`; iterative, with its own stack, so that a value
// nested 100,000 deep (an MCP server's answer, say) is scrubbed rather than a stack overflow that loses the receipt
function scrubStrings(root: unknown, scrub: (text: string) => string): unknown {
  let scrubbed: unknown;
  // each entry: a value still to copy, and where its copy goes
  const pending: Array<[unknown, (copy: unknown) => void]> = [[root, (copy) => (scrubbed = copy)]];
  while (pending.length > 0) {
    const [value, place] = pending.pop()!;
    if (typeof value === 'string') {
      place(scrub(value));
    } else if (Array.isArray(value)) {
      const copy: unknown[] = new Array<unknown>(value.length);
      place(copy);
      for (let index = value.length - 1; index >= 0; index -= 1) pending.push([value[index], (item) => (copy[index] = item)]);
    } else if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      place(copy);
      const entries = Object.entries(value);
      const names = entries.map(([key]) => scrub(key));
      // members are defined in their order first, then filled first to last off the stack: a later key that scrubs to
      // the same text as an earlier one wins, as it did with Object.fromEntries
      for (const name of names) define(copy, name, undefined);
      for (let index = entries.length - 1; index >= 0; index -= 1) pending.push([entries[index]![1], (member) => define(copy, names[index]!, member)]);
    } else {
      place(value);
    }
  }
  return scrubbed;
}

// a data property even for a key such as "__proto__", which plain assignment would take for the prototype
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
