import { timingSafeEqual } from 'node:crypto';
import { API_TOKEN_PRINCIPAL, hashToken, type PrincipalConfig } from './principals.js';

/** What of an `apis` target could carry a gateway token: its token, and its headers (an `Authorization: Bearer …`). */
export interface ApiCredentials {
  token?: string;
  headers?: Record<string, string>;
}

/**
 * A warning for each `apis` target whose token (or `Authorization` header) is the token of a configured principal
 * who may decide approvals or holds admin (`api_token` among them): a tool calling that API (the starter
 * `http-request` calls `apis.default`, this gateway's own) acts as that principal for every agent allowed the tool, a
 * confused deputy that reads other principals' receipts and approvals (review userZ4, F6). Compared by SHA-256; the
 * warning names the target and the principal, never the token.
 */
export function deputyTokenWarnings(apis: Readonly<Record<string, ApiCredentials>>, principals: readonly PrincipalConfig[]): string[] {
  // api_token is among them: the principal 'admin'
  const holders = principals
    .filter((principal) => principal.roles.includes('admin') || principal.roles.includes('approver'))
    .map((principal) => ({ name: principal.name, who: `principal '${principal.name}' (roles ${principal.roles.join(', ')}${principal.name === API_TOKEN_PRINCIPAL ? '; api_token' : ''})`, digest: principal.tokenSha256 }));
  if (holders.length === 0) return [];
  const warnings: string[] = [];
  for (const [name, target] of Object.entries(apis)) {
    const presented = [target.token, ...Object.entries(target.headers ?? {}).filter(([header]) => header.toLowerCase() === 'authorization').map(([, value]) => value.replace(/^\s*bearer\s+/i, '').trim())];
    for (const token of presented) {
      if (!token) continue;
      const digest = Buffer.from(hashToken(token), 'hex');
      const holder = holders.find((candidate) => sameDigest(digest, candidate.digest));
      if (!holder) continue;
      warnings.push(
        `apis.${name} presents the token of ${holder.who}: every agent allowed a tool that calls it (the starter http-request calls apis.default) acts as principal '${holder.name}' through it, and reads what it may (other principals' receipts and approvals); ` +
          `give apis.${name} the token of a principal of its own with the least rights (roles [agent] alone: it reads the registry and its own calls), never an admin's or an approver's`,
      );
      break;
    }
  }
  return warnings;
}

function sameDigest(digest: Buffer, hex: string): boolean {
  const other = Buffer.from(hex, 'hex');
  return other.length === digest.length && timingSafeEqual(other, digest);
}
