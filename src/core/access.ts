/** The roles a principal may hold (seed 003's identity gates): `agent` calls tools, `trusted` is an agent whose toolsets may replace its base list, `approver` decides approval requests, `metrics` reads GET /metrics (a scraper) and nothing more, `admin` is all of them. */
export const ROLES = ['agent', 'trusted', 'approver', 'admin', 'metrics'] as const;

/** One role of a principal. */
export type Role = (typeof ROLES)[number];

/** The roles that may call tools at all; an `approver` alone decides but does not run. */
export const CALLING_ROLES: readonly Role[] = ['agent', 'trusted', 'admin'];

/**
 * Who may see and run something (a tool's `access:` block, a policy's access rule): a principal holding one
 * of `roles` (admin holds every role) or named in `principals`. Both absent: every caller.
 */
export interface AccessGate {
  roles?: Role[];
  principals?: string[];
}

/** Whether a principal with these roles and this name passes the gate. */
export function passesGate(gate: AccessGate, principal: { name: string; roles: ReadonlySet<Role> }): boolean {
  if (gate.roles === undefined && gate.principals === undefined) return true;
  if (gate.principals?.includes(principal.name)) return true;
  if (gate.roles === undefined) return false;
  return principal.roles.has('admin') || gate.roles.some((role) => principal.roles.has(role));
}

/** The gate in words: "role trusted or admin, or principal deploy-bot". */
export function describeGate(gate: AccessGate): string {
  const parts: string[] = [];
  if (gate.roles?.length) parts.push(`role ${[...gate.roles.filter((role) => role !== 'admin'), 'admin'].join(' or ')}`);
  if (gate.principals?.length) parts.push(`principal ${gate.principals.join(' or ')}`);
  return parts.join(', or ') || 'nobody';
}
