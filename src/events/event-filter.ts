import { EVENT_TYPES, isEventType, isFailure, type EventType, type HldpEvent } from './event-types.js';

/** `failures` in a type list stands for every failure: a failed call, a rejected one, a failed scan, broken definitions. */
export const FAILURES = 'failures';

/** A filter from a list of event types (and `failures`); a string says what is wrong with the list. */
export function eventFilter(types: readonly string[] | undefined): ((event: HldpEvent) => boolean) | undefined | string {
  if (types === undefined || types.length === 0) return undefined;
  const unknown = types.filter((type) => type !== FAILURES && !isEventType(type));
  if (unknown.length > 0) return `unknown event type ${unknown.map((type) => `'${type.slice(0, 40)}'`).join(', ')}; the types are ${[...EVENT_TYPES, FAILURES].join(', ')}`;
  const wanted = new Set(types.filter(isEventType) as EventType[]);
  const failures = types.includes(FAILURES);
  return (event) => wanted.has(event.type) || (failures && isFailure(event));
}

/** The types of the log a list of event types (and `failures`) may let through, for the store to read only those; undefined: all. */
export function storedTypes(types: readonly string[] | undefined): EventType[] | undefined {
  if (types === undefined || types.length === 0) return undefined;
  const wanted = new Set(types.filter(isEventType) as EventType[]);
  if (types.includes(FAILURES)) for (const type of EVENT_TYPES) if (isFailure({ id: 0, type, at: '', data: { ok: false } })) wanted.add(type);
  return [...wanted];
}
