import { overseesAll, type EventViewer } from '../events/index.js';
import type { ConsolePrincipal } from './console-backend.js';

/** A principal as the console needs it: admins and approvers decide approvals and see every call; anyone else only their own. */
export function consolePrincipal(principal: EventViewer): ConsolePrincipal {
  return { name: principal.name, roles: [...principal.roles], approver: principal.roles.has('approver') || principal.roles.has('admin'), seesAll: overseesAll(principal) };
}
