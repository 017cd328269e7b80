import type { UsageEvent } from '../../core/index.js';
import type { RecentTools } from './recent-tools.js';
import type { CallStep, Registry } from './gateway.js';

/**
 * The call step that remembers what a session reaches for: the tool (by its registry name, whether
 * its params pass or not) becomes the session's most recent one, which informs its next matches,
 * and the call is stored beside the session's matches for `hldp suggest examples`.
 */
export function usageStep(recentTools: RecentTools, record: (event: UsageEvent) => void, registry: () => Registry): CallStep {
  return (request, next) => {
    const { session } = request;
    if (session !== undefined) {
      const { index, matcher } = registry();
      const known = matcher.lookup(request.tool, undefined);
      if (known.found) {
        recentTools.called(session.id, known.tool.name);
        record({ kind: 'call', session: session.id, at: new Date().toISOString(), commit: index.commit, tool: known.tool.name });
      }
    }
    return next(request);
  };
}
