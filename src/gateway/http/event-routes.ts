import express, { type Router } from 'express';
import { EVENT_TYPES, eventVisibleTo, isEventType, isFailure, lastEventId, streamEvents, type EventType, type HldpEvent } from '../../events/index.js';
import type { Gateway } from '../service/index.js';
import { principalOf } from './principal-auth.js';

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

/** `GET /v1/events`: the event stream as Server-Sent Events, resumable with `Last-Event-ID`, filtered by what the request's principal may see (mounted behind `principalAuth`). */
export function eventRouter(gateway: Gateway): Router {
  const router = express.Router();
  router.get('/v1/events', async (request, response) => {
    const after = lastEventId(request.get('last-event-id'), request.query.last_event_id);
    if (typeof after === 'object') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: after.error });
      return;
    }
    const types = typeof request.query.types === 'string' ? request.query.types.split(',').map((type) => type.trim()).filter(Boolean) : undefined;
    const accepts = eventFilter(types);
    if (typeof accepts === 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: accepts });
      return;
    }
    const principal = principalOf(response);
    const visible = (event: HldpEvent): boolean => eventVisibleTo(principal, event) && (accepts === undefined || accepts(event));
    await streamEvents(gateway.events, request, response, { ...(after === undefined ? {} : { after }), accepts: visible });
  });
  return router;
}
