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
 * What a principal may see of the stream. An admin sees everything; an approver everything but `definitions.broken`.
 * Anyone else sees the scans (`scan.completed` counts the broken files) and the events of its own calls; a call event
 * that names no caller (made before principals existed) is for overseers only. `definitions.broken` names each broken
 * file and its errors, and a broken definition's `access:` block cannot be read: an admin's alone, as a match or a
 * call of a broken tool tells its errors only to an admin (review Z2-3; `GET /v1/tools` counts them for the others).
 */
export function eventVisibleTo(viewer: EventViewer, event: HldpEvent): boolean {
  if (event.type === 'definitions.broken') return viewer.roles.has('admin');
  if (overseesAll(viewer)) return true;
  switch (event.type) {
    case 'scan.completed':
    case 'scan.failed':
      return true;
    case 'receipt.stored':
    case 'call.rejected':
    case 'approval.requested':
    case 'approval.resolved':
      return event.data.caller === viewer.name;
  }
}
