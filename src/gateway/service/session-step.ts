import type { LookupResult } from '../../matcher/index.js';
import { mayKnowBroken, type SessionManager } from '../../sessions/index.js';
import type { CallOutcome } from './call-outcome.js';
import type { CallStep } from './gateway.js';
import type { NearMiss, RemovedTools } from '../../core/index.js';
import type { Registry } from './registry-swap.js';
import { offeringOnly, toldToCaller, unknownToolOutcome } from './unknown-tool.js';

/**
 * The visibility step of the call path: asks the sessions' one visibility function what the tool is for the
 * caller. Forbidden is refused with its reason; reserved (in a session, called directly) enables the tool's
 * toolset and answers that nothing ran — or, under `sessions.reserved_calls: run`, runs it at once when its
 * params are valid; anything else goes on, and a call that ran keeps the toolsets holding the tool alive. An unknown
 * name's near misses keep only the tools the caller may be offered.
 */
export function sessionStep(sessions: SessionManager, lookup: (name: string, params: unknown) => LookupResult, removed: () => RemovedTools | undefined): CallStep {
  return async (request, next) => {
    const decision = sessions.decideCall(request.session, request.tool, request.via, request.caller);
    const ran = async (toolsetEnabled?: string | null): Promise<CallOutcome> => {
      const outcome = await next(request);
      if (outcome.kind === 'receipt' && request.session && decision.kind !== 'unknown') sessions.afterCall(request.session, decision.tool.name);
      return toolsetEnabled !== undefined && outcome.kind === 'receipt' ? { ...outcome, toolset_enabled: toolsetEnabled } : outcome;
    };
    switch (decision.kind) {
      case 'unknown': {
        // "did you mean" names only tools the caller may be offered, as tool_find does
        const outcome = await ran();
        // a broken tool's diagnostics, or the removed tool an alias named, go only to whom its match may name it; anyone
        // else is answered as for a name never written (review Z2, Z2-3; review Z11, Z11-2)
        if (outcome.kind === 'broken' || (outcome.kind === 'not_found' && outcome.removed_at !== undefined)) {
          const mayKnow = mayKnowBroken(sessions.rights, sessions.registryView().index, request.session?.id, request.session?.principal ?? request.caller);
          const told = toldToCaller(outcome, request.tool, removed(), mayKnow);
          if (told !== outcome || outcome.kind === 'broken') return told;
        }
        return outcome.kind === 'not_found' ? offeringOnly(outcome, request.tool, sessions.mayOffer(request.session, outcome.near, request.caller)) : outcome;
      }
      case 'run':
        return ran();
      case 'refuse': {
        const { reason } = decision.visibility;
        return { kind: 'refused', code: 'TOOL_FORBIDDEN', tool: decision.tool.name, state: 'forbidden', reason, error: `'${request.tool}' is forbidden: ${reason}` };
      }
      case 'substitute': {
        const checked = lookup(request.tool, request.params);
        if (sessions.config.reservedCalls === 'run' && checked.found && checked.valid) return ran(decision.toolset);
        const { tool, toolset, tools, message } = decision;
        return { kind: 'substituted', code: 'CALL_NOT_RUN', ran: false, tool: tool.name, toolset, tools, message };
      }
    }
  };
}

/**
 * `GET /v1/tools/:name` of a name the registry does not serve, as told to `principal`: a broken definition's file and
 * errors, or the removed tool an alias named, only to whom `mayKnowBroken` lets know it, as a call of it is (review Z11, Z11-1).
 */
export function unknownToolFor(sessions: SessionManager, registry: Pick<Registry, 'index' | 'removed'>, name: string, error: string, near: NearMiss[], principal?: string): Extract<CallOutcome, { kind: 'not_found' | 'broken' }> {
  const outcome = unknownToolOutcome(registry, name, error, near);
  return toldToCaller(outcome, name, registry.removed, mayKnowBroken(sessions.rights, registry.index, undefined, principal)) as typeof outcome;
}
