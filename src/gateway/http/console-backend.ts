import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleBackend, ConsolePrincipal, ConsoleSessionSummary, PendingApproval } from '../../console/index.js';
import type { Gateway } from '../service/index.js';
import { ConfirmationQueue } from './confirmation-queue.js';

const ADMIN: ConsolePrincipal = Object.freeze({ name: 'admin', roles: ['admin', 'approver'], approver: true });
const LOCAL: ConsolePrincipal = Object.freeze({ name: 'local', roles: ['admin', 'approver'], approver: true });

function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * What the console reads and does, over a gateway. Until principals exist (issue #14), the one principal is the
 * `api_token`'s admin (or, on a loopback gateway with no token, `local`), who sees every event and decides the
 * confirmations this instance asked for.
 */
export function consoleBackend(gateway: Gateway): ConsoleBackend & { close(): void } {
  const { config } = gateway;
  const queue = new ConfirmationQueue(gateway);
  const token = config.apiToken;
  return {
    events: gateway.events,
    credentialsRequired: token !== undefined,
    authenticate: (given) => (token !== undefined && sameToken(given, token) ? ADMIN : undefined),
    principal: (name) => (token !== undefined ? (name === ADMIN.name ? ADMIN : undefined) : name === LOCAL.name ? LOCAL : undefined),
    maysee: () => true,
    receipts: (query) => gateway.store.receipts.list(query),
    receipt: (id) => gateway.store.receipts.get(id),
    registry: () => ({ index: gateway.registry.index, ...(gateway.scanError ? { scanError: gateway.scanError } : {}) }),
    sessions: async (): Promise<ConsoleSessionSummary[]> =>
      (await gateway.sessions.list()).map((state) => ({
        id: state.id,
        ...(state.principal === undefined ? {} : { principal: state.principal }),
        created_at: new Date(state.created_at).toISOString(),
        last_used: new Date(state.last_used).toISOString(),
        toolsets: state.toolsets.map((toolset) => ({ name: toolset.name, scope: toolset.scope, expires_at: toolset.deadline === null ? null : new Date(toolset.deadline).toISOString() })),
        loaded: state.loaded.map((tool) => tool.name),
      })),
    approvals: {
      pending: async (): Promise<PendingApproval[]> => queue.pending(),
      approve: (id, by, reason) => queue.approve(id, by.name, reason),
      deny: (id, by, reason) => queue.deny(id, by.name, reason),
    },
    // instances that share the api_token accept each other's cookies; without one, sign-ins last as long as this process
    sessionKey: token !== undefined ? createHash('sha256').update(`brush-holder console sessions\0${token}`).digest() : randomBytes(32),
    close: () => queue.close(),
  };
}
