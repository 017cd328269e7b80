import { consolePrincipal, type ConsoleBackend, type ConsoleSessionSummary } from '../console/index.js';
import { findTool } from '../core/index.js';
import { receiptReadsOf } from '../http-edge/index.js';
import { eventVisibleTo } from '../events/index.js';
import type { SessionState } from '../sessions/index.js';
import { rejectionsTool, type OversightGateway } from './oversight-gateway.js';
import { consoleApprovals } from './console-approvals.js';

/**
 * What the console reads and does, over a gateway: sign-in with any configured principal's token (or, on a gateway
 * with no credentials, as `local`); each sees the events and receipts `eventVisibleTo` lets it; admins and approvers
 * decide approval requests (of every instance, from the store) under the same rules as `POST /v1/approvals/:id/approve`.
 */
export function consoleBackend(gateway: OversightGateway, sessionKey: Buffer): ConsoleBackend & { close(): void } {
  const { principals } = gateway;
  return {
    events: gateway.events,
    credentialsRequired: principals.required,
    authenticate: (given) => {
      const principal = principals.authenticate(given);
      return principal ? consolePrincipal(principal) : undefined;
    },
    principal: (name) => {
      // a signed-in name whose principal was removed from the config (or, once credentials exist, `local`) is no one
      const principal = principals.required && name === 'local' ? undefined : principals.get(name);
      return principal ? consolePrincipal(principal) : undefined;
    },
    maysee: (principal, event) => eventVisibleTo({ name: principal.name, roles: new Set(principal.roles) }, event),
    // the lists are read as summaries, a receipt as an excerpt: a page of receipts of many MB each parsed on the event loop held every request
    search: (query) => gateway.store.receipts.searchSummaries(query),
    receiptPage: async (query, maxBytes) => {
      const { summaries, more, endedEarly } = await gateway.store.receipts.pageSummaries(query, maxBytes);
      return { receipts: summaries, more, endedEarly };
    },
    receipt: (id, chars, caller) => gateway.store.receipts.excerpt(id, chars, caller === undefined ? {} : { caller }),
    receiptRaw: (id, field, caller) => gateway.store.receipts.rawField(id, field, caller === undefined ? {} : { caller }),
    receiptReads: receiptReadsOf(gateway),
    rejections: (query) => gateway.store.rejections.list(query.tool !== undefined ? { ...query, tool: rejectionsTool(gateway, query.tool) } : query),
    registry: () => ({ index: gateway.registry.index, ...(gateway.scanError ? { scanError: gateway.scanError } : {}) }),
    sessions: async (): Promise<ConsoleSessionSummary[]> => (await gateway.sessions.list()).map((state) => sessionSummary(gateway, state)),
    approvals: consoleApprovals(gateway),
    sessionKey,
    sessionBinding: (name) => principals.tokenDigest(name) ?? (name === 'local' && !principals.required ? '' : undefined),
    now: () => gateway.store.now(),
    signOut: (id, expiresMs) => gateway.store.signOuts.add(id, expiresMs),
    signedOut: (id) => gateway.store.signOuts.has(id),
    close: () => undefined,
  };
}

/**
 * A session as the console lists it. A toolset or loaded tool a rescan took away is marked, as the session's own view
 * (which leaves such a tool out, and names such a toolset as gone) has it: it was listed as live (review userX, X6).
 */
function sessionSummary(gateway: OversightGateway, state: SessionState): ConsoleSessionSummary {
  const gone = new Map(gateway.sessions.goneHeld(state).map((entry) => [entry.name, entry.message]));
  const { index } = gateway.registry;
  const removed = state.loaded.filter((tool) => findTool(index, tool.name) === undefined).map((tool): [string, string] => [tool.name, `removed: not in the registry at commit ${/^[0-9a-f]{40}$/.test(index.commit) ? index.commit.slice(0, 7) : index.commit}`]);
  return {
    id: state.id,
    ...(state.principal === undefined ? {} : { principal: state.principal }),
    created_at: new Date(state.created_at).toISOString(),
    last_used: new Date(state.last_used).toISOString(),
    toolsets: state.toolsets.map((toolset) => ({ name: toolset.name, scope: toolset.scope, expires_at: toolset.deadline === null ? null : new Date(toolset.deadline).toISOString(), ...(gone.has(toolset.name) ? { gone: gone.get(toolset.name)! } : {}) })),
    loaded: state.loaded.map((tool) => tool.name),
    ...(removed.length ? { removed: Object.fromEntries(removed) } : {}),
  };
}
