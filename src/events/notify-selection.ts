import { isFailure, type HldpEvent } from './event-types.js';

/**
 * What a `notify` target may list in `events` beside the event types and `failures`: an agent's own confirmations.
 * `approval.requested` and `approval.resolved` carry `kind: confirmation` when the caller may confirm the call itself
 * (a tool's `require_confirm`, a rule's `self_approval`): no person is waiting on it, so a target that lists
 * `approval.requested` (the default list does) is not paged for it; one that wants those lists these names
 * (user finding U11-15). The event stream (`GET /v1/events`, the console's live pages) carries them as they are.
 */
const CONFIRMATION_EVENTS = { requested: 'confirmation.requested', resolved: 'confirmation.resolved' } as const;

/** The name a target lists to receive `event`, when it is an agent's own confirmation; undefined for any other event. */
function confirmationName(event: HldpEvent): string | undefined {
  if (event.data.kind !== 'confirmation') return undefined;
  if (event.type === 'approval.requested') return CONFIRMATION_EVENTS.requested;
  if (event.type === 'approval.resolved') return CONFIRMATION_EVENTS.resolved;
  return undefined;
}

/** Whether a target listing `events` is sent `event`: its type, `failures` for a failure, an agent's confirmation by its own name. */
export function notifyWants(events: readonly string[], event: HldpEvent): boolean {
  const confirmation = confirmationName(event);
  if (confirmation !== undefined) return events.includes(confirmation);
  return events.includes(event.type) || (events.includes('failures') && isFailure(event));
}
