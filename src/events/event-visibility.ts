import type { HldpEvent } from './event-types.js';

/** Who reads the stream: a principal's name and roles (the policy folder's `Principal` fits). */
export interface EventViewer {
  name: string;
  roles: ReadonlySet<string>;
}

/** Roles that watch every call: admins, and approvers (who decide other principals' calls). */
const OVERSEEING_ROLES = ['admin', 'approver'];

/** Whether a principal oversees every call (and so sees every event, every receipt, every session). */
export function overseesAll(viewer: EventViewer): boolean {
  return OVERSEEING_ROLES.some((role) => viewer.roles.has(role));
}

/**
 * What a principal may see of the stream. An admin or approver sees everything. Anyone else sees the registry's
 * events (scans, broken definitions: what every caller's tool list is made from) and the events of its own calls;
 * a call event that names no caller (made before principals existed) is for overseers only.
 */
export function eventVisibleTo(viewer: EventViewer, event: HldpEvent): boolean {
  if (overseesAll(viewer)) return true;
  switch (event.type) {
    case 'scan.completed':
    case 'scan.failed':
    case 'definitions.broken':
      return true;
    case 'receipt.stored':
    case 'call.rejected':
    case 'approval.requested':
    case 'approval.resolved':
      return event.data.caller === viewer.name;
  }
}
