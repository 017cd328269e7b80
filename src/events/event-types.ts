/** Every event type the stream carries, in the order the README lists them. */
export const EVENT_TYPES = [
  'receipt.stored',
  'call.rejected',
  'approval.requested',
  'approval.resolved',
  'scan.completed',
  'scan.failed',
  'definitions.broken',
] as const;

/** One of the stream's event types. */
export type EventType = (typeof EVENT_TYPES)[number];

/** One event as subscribers see it: its place in the log (`id`), its type, when it happened, and what it says. */
export interface HldpEvent {
  /** the log's `seq`: increasing across every instance sharing the store; the SSE `id` */
  id: number;
  type: EventType;
  /** ISO time */
  at: string;
  data: Record<string, unknown>;
}

/** Whether `value` names an event type. */
export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** Whether an event tells of something that went wrong: a failed call, a rejected one, a scan that failed, broken definitions. */
export function isFailure(event: HldpEvent): boolean {
  switch (event.type) {
    case 'receipt.stored':
      return event.data.ok === false;
    case 'call.rejected':
    case 'scan.failed':
    case 'definitions.broken':
      return true;
    case 'approval.requested':
    case 'approval.resolved':
    case 'scan.completed':
      return false;
  }
}
