import type { FuncKeywordDefinition } from 'ajv/dist/types/index.js';
import equal from 'ajv/dist/runtime/equal.js';
import { errorHooks, ERROR_HOOKS } from './error-work.js';
import { charge } from './params-work.js';

// JSON Schema's `uniqueItems`, checked in time linear in the array's size (review V, V4). ajv's own code hashes the
// items only when the schema's `items` gives them scalar types; otherwise (no `items`, or items that may be objects or
// arrays) it deep-compares every pair on the event loop: one call with 60,000 distinct `[i]` (a 529 KB body) held
// every other request of a served gateway, /healthz too, for 52 s, and any principal could repeat it.

// ajv's `equal` (fast-deep-equal) ships as CommonJS: its function arrives under `default` under NodeNext
const deepEqual = ((equal as unknown as { default?: unknown }).default ?? equal) as (a: unknown, b: unknown) => boolean;

/** Two items that are the same JSON value: `i` the later, `j` the earlier (as ajv reports them). */
export interface DuplicatePair {
  i: number;
  j: number;
}

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype;
};

/**
 * A text that two values share exactly when ajv's deep equality holds between them: object keys sorted, numbers
 * written so that Infinity and null stay apart (JSON.stringify writes both as null), -0 as 0 (as `===` has it).
 * Undefined for a value that JSON does not give (a Date, a Map, a bigint), which the caller compares as ajv does.
 * Recursive: params deeper than MAX_JSON_DEPTH are refused before validation, so the depth is small.
 */
function itemKey(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value === 0 ? 0 : value) : `#${String(value)}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return 'u';
    case 'object':
      if (value === null) return 'n';
      return Array.isArray(value) ? arrayKey(value) : isPlainObject(value) ? objectKey(value as Record<string, unknown>) : undefined;
    default:
      return undefined;
  }
}

function arrayKey(items: readonly unknown[]): string | undefined {
  const parts: string[] = [];
  for (const item of items) {
    const key = itemKey(item);
    if (key === undefined) return undefined;
    parts.push(key);
  }
  return `[${parts.join(',')}]`;
}

function objectKey(object: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  for (const name of Object.keys(object).sort()) {
    const key = itemKey(object[name]);
    if (key === undefined) return undefined;
    parts.push(`${JSON.stringify(name)}:${key}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The pair ajv's own pairwise check would report for `items` (the last item equal to an earlier one, and the latest
 * such earlier one), or undefined when all are distinct: one pass keyed by each item's canonical text. Items JSON
 * cannot give (only an in-process caller's) are compared pairwise, as ajv does.
 */
export function duplicateItems(items: readonly unknown[], instancePath = ''): DuplicatePair | undefined {
  const latest = new Map<string, number>();
  let found: DuplicatePair | undefined;
  for (let i = 0; i < items.length; i++) {
    const key = itemKey(items[i]);
    if (key === undefined) return pairwise(items);
    // each item's text is made whole, so the check costs the array's size, not its length: charged as it goes, since
    // `allOf: [{uniqueItems: true}, …]` makes it again for each copy (review Y, Y2: 47 s for a 400 KB call)
    charge(key.length * UNIQUE_UNITS_PER_CHARACTER, instancePath, () => `uniqueItems over its items' ${items.length.toLocaleString('en-US')} texts`);
    const j = latest.get(key);
    if (j !== undefined) found = { i, j };
    latest.set(key, i);
  }
  return found;
}

// building an item's text costs about two units a character: a 400 KB item took ~150 ms at load ~25 (review Y, Y2)
const UNIQUE_UNITS_PER_CHARACTER = 2;

function pairwise(items: readonly unknown[]): DuplicatePair | undefined {
  for (let i = items.length - 1; i > 0; i--) {
    for (let j = i - 1; j >= 0; j--) if (deepEqual(items[i], items[j])) return { i, j };
  }
  return undefined;
}

type KeywordCheck = ((schema: unknown, data: unknown, parent?: unknown, context?: { instancePath: string }) => boolean) & { errors?: Array<{ keyword: string; message: string; params: DuplicatePair }> };

const check: KeywordCheck = (schema, data, _parent, context) => {
  if (schema !== true || !Array.isArray(data)) return true;
  const pair = duplicateItems(data, context?.instancePath ?? '');
  if (pair === undefined) return true;
  errorHooks[ERROR_HOOKS.error](context?.instancePath ?? '');
  check.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)`, params: pair }];
  return false;
};

/**
 * ajv's `uniqueItems` replaced by the linear check, at the place ajv evaluates its own (after `items` and
 * `contains`, which fill in defaults first); given to ajv.addKeyword after ajv.removeKeyword('uniqueItems').
 */
export const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  before: 'maxContains',
  validate: check,
};
