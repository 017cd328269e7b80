import type { RequestHandler, Response } from 'express';
import { eventFilter } from './event-filter.js';
import type { EventHub } from './event-hub.js';
import type { HldpEvent } from './event-types.js';
import { eventVisibleTo, overseesAll, type EventViewer } from './event-visibility.js';
import { lastEventId, streamEvents } from './sse-response.js';

/**
 * `GET /v1/events`: the event stream as Server-Sent Events, resumable with `Last-Event-ID`, filtered by what the
 * request's principal may see (`viewerOf`: the principal the gateway's authentication admitted the request as).
 */
/** Streams one principal that oversees nothing (an agent) may hold open at once: each may queue up to 4 MiB. */
export const MAX_STREAMS_PER_AGENT = 16;

export function eventStreamRoute(hub: EventHub, viewerOf: (response: Response) => EventViewer, maxStreams = MAX_STREAMS_PER_AGENT): RequestHandler {
  // open streams per principal (agents only: admins, approvers and the local operator watch as they need)
  const open = new Map<string, number>();
  return async (request, response) => {
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
    const principal = viewerOf(response);
    const counted = !overseesAll(principal);
    const streams = open.get(principal.name) ?? 0;
    if (counted && streams >= maxStreams) {
      response.status(429).json({ code: 'TOO_MANY_STREAMS', error: `principal '${principal.name}' already has ${streams} event streams open, the most one agent may hold; close one (a stream resumes where it left off with Last-Event-ID)` });
      return;
    }
    if (counted) open.set(principal.name, streams + 1);
    const visible = (event: HldpEvent): boolean => eventVisibleTo(principal, event) && (accepts === undefined || accepts(event));
    try {
      await streamEvents(hub, request, response, { ...(after === undefined ? {} : { after }), accepts: visible });
    } finally {
      if (counted) {
        const left = (open.get(principal.name) ?? 1) - 1;
        if (left === 0) open.delete(principal.name);
        else open.set(principal.name, left);
      }
    }
  };
}
