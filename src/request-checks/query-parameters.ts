import type { ReceiptQuery } from '../store/index.js';

/** A query string as express's simple parser gives it: each value a string, or a list when repeated. */
type Query = Record<string, unknown>;

/** The query's values, each given at most once, or a message saying what is wrong (which names a route takes is queryGuard's to check). */
function single(query: Query): Record<string, string | undefined> | string {
  for (const [key, value] of Object.entries(query)) if (typeof value !== 'string') return `query parameter '${key}' must be given once`;
  return query as Record<string, string | undefined>;
}

/** A whole number within bounds: digits only, and a safe integer (9007199254740993 is not silently rounded). */
export function integerParameter(name: string, text: string | undefined, fallback: number, min: number, max: number): number | string {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    return `'${name}' must be an integer from ${min} to ${max}, got '${text.slice(0, 40)}'`;
  }
  return value;
}

/** `GET /v1/receipts` query → receipt query, or a message saying what is wrong. */
export function receiptQuery(query: Query): ReceiptQuery | string {
  const values = single(query);
  if (typeof values === 'string') return values;
  const { ok, tool, since } = values;
  if (ok !== undefined && ok !== 'true' && ok !== 'false') return "'ok' must be true or false";
  if (since !== undefined && Number.isNaN(Date.parse(since))) return "'since' must be an ISO date or time, e.g. 2026-11-29T10:00:00Z";
  const limit = integerParameter('limit', values.limit, 50, 1, 1000);
  if (typeof limit === 'string') return limit;
  const offset = integerParameter('offset', values.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  if (typeof offset === 'string') return offset;
  return {
    limit,
    offset,
    ...(ok !== undefined ? { status: ok === 'true' ? ('ok' as const) : ('failed' as const) } : {}),
    ...(tool !== undefined ? { tool } : {}),
    ...(since !== undefined ? { since } : {}),
  };
}

/** What `GET /v1/tools` is asked for. */
export interface ToolListQuery {
  limit: number;
  offset: number;
  group?: string;
  /** words that must all appear in a tool's name, display, intent, aliases or group (case-insensitive) */
  q?: string;
  /** names, titles and intents only: no schemas, no executor details */
  summary: boolean;
}

/** Default and largest page of `GET /v1/tools`: one page stays a few hundred KiB at most. */
export const TOOL_PAGE = { default: 100, max: 1000 } as const;

/** `GET /v1/tools` query → tool list query, or a message saying what is wrong. */
export function toolListQuery(query: Query): ToolListQuery | string {
  const values = single(query);
  if (typeof values === 'string') return values;
  const limit = integerParameter('limit', values.limit, TOOL_PAGE.default, 1, TOOL_PAGE.max);
  if (typeof limit === 'string') return limit;
  const offset = integerParameter('offset', values.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  if (typeof offset === 'string') return offset;
  const { summary, group, q } = values;
  if (summary !== undefined && summary !== 'true' && summary !== 'false') return "'summary' must be true or false";
  return { limit, offset, summary: summary === 'true', ...(group !== undefined ? { group } : {}), ...(q !== undefined && q.trim() !== '' ? { q } : {}) };
}
