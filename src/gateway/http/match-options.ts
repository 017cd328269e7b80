import type { MatchOptions } from '../service/index.js';

/** A match request's `limit` and `context` as the gateway's options; the body was validated against MatchContext. */
export function matchOptions(limit: number | undefined, context: Record<string, unknown> | undefined): MatchOptions {
  const tools = context?.['tools'] as string[] | undefined;
  const group = context?.['group'] as string | undefined;
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(tools === undefined && group === undefined ? {} : { context: { ...(tools ? { tools } : {}), ...(group ? { group } : {}) } }),
  };
}
