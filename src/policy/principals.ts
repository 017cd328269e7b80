import { createHash, timingSafeEqual } from 'node:crypto';
import { ROLES, type Role } from '../core/index.js';

/** A named identity (seed 003): who a request acts for, what it may be, and the base list of tools it works with. */
export interface Principal {
  name: string;
  roles: ReadonlySet<Role>;
  /** tool names, aliases and groups: its base list (absent: the whole registry); see `accessRights` */
  tools?: readonly string[];
}

/** How a principal is configured: its token only as a SHA-256 digest (hex), never in clear. */
export interface PrincipalConfig {
  name: string;
  roles: Role[];
  /** hex SHA-256 of the bearer token */
  tokenSha256: string;
  tools?: string[];
}

/**
 * The operator at this machine: every HTTP and MCP request when the gateway has no credentials at all (loopback,
 * no api_token, no principals), and the in-process CLI (`hldp call`, `hldp mcp`) unless `HLDP_TOKEN` names another.
 */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ name: 'local', roles: new Set<Role>(ROLES) });

/** The principal `api_token` stands for: one admin, as before principals existed. */
export const API_TOKEN_PRINCIPAL = 'admin';

/** The hex SHA-256 of a token: what the config holds and what a presented token is compared by. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/**
 * The configured principals and their token digests. `authenticate` hashes the presented token and compares it
 * with every principal's digest in constant time, without stopping at a match: neither where two tokens differ
 * nor which principal matched shows in the time it takes.
 */
export class Principals {
  private readonly byName = new Map<string, Principal>();
  private readonly digests: Array<{ digest: Buffer; principal: Principal }> = [];
  private readonly digestByName = new Map<string, string>();
  // the clear token of each principal that authenticated in this process, by name: at most one a principal (a token
  // matches one digest), held in memory only, so that a token pasted into params or printed by a tool is redacted
  // even when the config holds only its digest (review J F6)
  private readonly seenTokens = new Map<string, string>();

  constructor(configs: readonly PrincipalConfig[]) {
    for (const config of configs) {
      if (this.byName.has(config.name)) throw new TypeError(`principal '${config.name}' is configured twice`);
      if (config.name === LOCAL_PRINCIPAL.name) throw new TypeError(`principal name '${LOCAL_PRINCIPAL.name}' is reserved for the operator at this machine (the CLI); choose another`);
      const digest = config.tokenSha256.toLowerCase();
      if (!HEX_DIGEST.test(digest)) throw new TypeError(`principal '${config.name}': token_sha256 must be 64 hex digits (the SHA-256 of its token)`);
      const principal: Principal = Object.freeze({ name: config.name, roles: new Set(config.roles), ...(config.tools ? { tools: [...config.tools] } : {}) });
      this.byName.set(config.name, principal);
      this.digests.push({ digest: Buffer.from(digest, 'hex'), principal });
      this.digestByName.set(config.name, digest);
    }
  }

  /** Whether any credential is configured: then every request must present a token. */
  get required(): boolean {
    return this.digests.length > 0;
  }

  /** The principal a bearer token stands for, if any. */
  authenticate(token: string): Principal | undefined {
    const presented = createHash('sha256').update(token, 'utf8').digest();
    let found: Principal | undefined;
    for (const { digest, principal } of this.digests) {
      // every digest is compared, whatever matched before
      if (timingSafeEqual(presented, digest) && found === undefined) found = principal;
    }
    if (found) this.seenTokens.set(found.name, token);
    return found;
  }

  /**
   * The clear tokens that authenticated a request in this process (never written anywhere): what no receipt, record,
   * event or log may carry. A `token_sha256` principal's token is known only once it has been presented here.
   */
  authenticatedTokens(): string[] {
    return [...this.seenTokens.values()];
  }

  /** The principal of that name: a configured one, or `local`. */
  get(name: string): Principal | undefined {
    return this.byName.get(name) ?? (name === LOCAL_PRINCIPAL.name ? LOCAL_PRINCIPAL : undefined);
  }

  /** The principal of a request that presented no token: `local` when nothing is configured, nobody otherwise. */
  anonymous(): Principal | undefined {
    return this.required ? undefined : LOCAL_PRINCIPAL;
  }

  /** The hex SHA-256 of a configured principal's current token (what sign-in cookies are bound to); `local` has none. */
  tokenDigest(name: string): string | undefined {
    return this.digestByName.get(name);
  }

  /** Every configured principal. */
  list(): Principal[] {
    return [...this.byName.values()];
  }
}
