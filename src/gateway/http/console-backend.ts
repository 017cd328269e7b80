import { createHash, randomBytes } from 'node:crypto';
import type { ConsoleBackend, ConsolePrincipal, ConsoleSessionSummary } from '../../console/index.js';
import { eventVisibleTo, overseesAll } from '../../events/index.js';
import type { Principal } from '../../policy/index.js';
import type { Gateway } from '../service/index.js';
import { consoleApprovals } from './console-approvals.js';

/** A principal as the console needs it: admins and approvers decide approvals and see every call; anyone else only their own. */
function consolePrincipal(principal: Principal): ConsolePrincipal {
  return { name: principal.name, roles: [...principal.roles], approver: principal.roles.has('approver') || principal.roles.has('admin'), seesAll: overseesAll(principal) };
}

/** Where the deployment's cookie-signing key is kept in the store. */
const SESSION_KEY_SECRET = 'console.session_key';

/**
 * The key console cookies are signed with, the same in every instance of a deployment (so that instances behind one
 * load balancer accept each other's sign-ins): derived from the `api_token` when there is one, whatever the
 * instances' stores; otherwise 32 random bytes made once by the first instance and kept in the shared store (the
 * principals' token digests in the config are no secret, so nothing in it could serve). Never logged.
 */
export async function consoleSessionKey(gateway: Gateway): Promise<Buffer> {
  const token = gateway.config.apiToken;
  if (token !== undefined) return createHash('sha256').update(`brush-holder console sessions\0${token}`).digest();
  const kept = Buffer.from(await gateway.store.secrets.getOrCreate(SESSION_KEY_SECRET, () => randomBytes(32).toString('base64')), 'base64');
  // fail closed on a value that is not a key (edited by hand): signing with it would make cookies guessable
  if (kept.length < 32) throw new Error(`the console's signing key in the store ('${SESSION_KEY_SECRET}' in deployment_secrets) is not 32 bytes of base64; delete that row and restart, and every instance makes a new one`);
  return kept;
}

/**
 * What the console reads and does, over a gateway: sign-in with any configured principal's token (or, on a gateway
 * with no credentials, as `local`); each sees the events and receipts `eventVisibleTo` lets it; admins and approvers
 * decide approval requests (of every instance, from the store) under the same rules as `POST /v1/approvals/:id/approve`.
 */
export function consoleBackend(gateway: Gateway, sessionKey: Buffer): ConsoleBackend & { close(): void } {
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
    receipts: (query) => gateway.store.receipts.list(query),
    receipt: (id) => gateway.store.receipts.get(id),
    rejections: (query) => gateway.store.rejections.list(query),
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
    approvals: consoleApprovals(gateway),
    sessionKey,
    sessionBinding: (name) => principals.tokenDigest(name) ?? (name === 'local' && !principals.required ? '' : undefined),
    signOut: (id, expiresMs) => gateway.store.signOuts.add(id, expiresMs),
    signedOut: (id) => gateway.store.signOuts.has(id),
    close: () => undefined,
  };
}
