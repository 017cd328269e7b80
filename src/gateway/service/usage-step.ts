import type { UsageEvent } from '../../core/index.js';
import type { RecentTools } from './recent-tools.js';
import type { CallStep, Registry } from './gateway.js';

/**
 * The call step that remembers what a session reaches for: the tool (by its registry name, whether
 * its params pass or not) becomes the session's most recent one, which informs its next matches,
 * and the call is stored beside the session's matches for `hldp suggest examples`, with the principal it was
 * made for and whether it ran successfully (it is recorded once it has answered, at the time it was made).
 */
export function usageStep(recentTools: RecentTools, record: (event: UsageEvent) => void, registry: () => Registry): CallStep {
  return async (request, next) => {
    const { session } = request;
    if (session === undefined) return next(request);
    const { index, matcher } = registry();
    const known = matcher.lookup(request.tool, undefined);
    if (!known.found) return next(request);
    recentTools.called(session.id, known.tool.name);
    const at = new Date().toISOString();
    const principal = request.caller ?? session.principal;
    const event = { kind: 'call' as const, session: session.id, ...(principal === undefined ? {} : { principal }), at, commit: index.commit, tool: known.tool.name };
    try {
      const outcome = await next(request);
      // only a run that succeeded says the request meant this tool (review Z6, Z6-5: failed calls were counted)
      record({ ...event, ok: outcome.kind === 'receipt' && outcome.receipt.ok });
      return outcome;
    } catch (error) {
      record({ ...event, ok: false });
      throw error;
    }
  };
}
