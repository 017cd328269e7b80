import type { Logger } from 'pino';
import { StoredSessionStore, type SessionStore } from '../../sessions/index.js';
import type { Store } from '../../store/index.js';
import type { GatewayConfig } from '../../config/index.js';

/**
 * Where the gateway's agent sessions live (`sessions.store`): in the shared store when asked, or by default when
 * the store is PostgreSQL (the scale-out of issue #17, where requests of one client land at any instance); in
 * this process's memory otherwise, as SessionManager's default.
 */
export function sessionStoreOf(config: GatewayConfig, store: Store, clock: (() => number) | undefined, logger: Pick<Logger, 'warn'> | undefined): { store?: SessionStore } {
  const { sessions } = config;
  const shared = sessions.store === 'shared' || (sessions.store === 'auto' && store.kind === 'postgres');
  if (!shared) return {};
  return {
    store: new StoredSessionStore(store.agentSessions, {
      idleMs: sessions.idleMs,
      now: clock ?? Date.now,
      onError: (error, what) => logger?.warn({ err: error.message }, what),
    }),
  };
}
