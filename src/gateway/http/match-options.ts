import type { Request } from 'express';
import { MATCH_WAIT_MS, type MatchOptions } from '../service/index.js';

/** A match request's `limit` and `context` as the gateway's options; the body was validated against MatchContext. */
export function matchOptions(limit: number | undefined, context: Record<string, unknown> | undefined): MatchOptions {
  const tools = context?.['tools'] as string[] | undefined;
  const group = context?.['group'] as string | undefined;
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(tools === undefined && group === undefined ? {} : { context: { ...(tools ? { tools } : {}), ...(group ? { group } : {}) } }),
  };
}

/**
 * How long a match may wait for the search index while it is loading after a start: `Prefer: wait=N` (RFC 7240,
 * seconds; `wait=0` answers 503 SEARCH_INDEX_LOADING at once), at most the default {@link MATCH_WAIT_MS}.
 */
export function matchWait(request: Request): Pick<MatchOptions, 'waitMs'> {
  const wait = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(request.get('Prefer') ?? '')?.[1];
  return wait === undefined ? {} : { waitMs: Math.min(MATCH_WAIT_MS, Number(wait) * 1000) };
}
