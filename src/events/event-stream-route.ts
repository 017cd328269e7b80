import type { RequestHandler, Response } from 'express';
import { eventFilter, storedTypes } from './event-filter.js';
import type { EventHub } from './event-hub.js';
import type { HldpEvent } from './event-types.js';
import { eventVisibleTo, type EventViewer } from './event-visibility.js';
import { lastEventId, streamEvents } from './sse-response.js';

/**
 * `GET /v1/events`: the event stream as Server-Sent Events, resumable with `Last-Event-ID`, filtered by what the
 * request's principal may see (`viewerOf`: the principal the gateway's authentication admitted the request as).
 * An agent's open streams count against the hub's quota, shared with the console's stream.
 */
export function eventStreamRoute(hub: EventHub, viewerOf: (response: Response) => EventViewer): RequestHandler {
  return async (request, response) => {
    const after = lastEventId(request.get('last-event-id'), request.query);
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
    const place = hub.streams.take(principal);
    if (!place.ok) {
      response.status(429).json({ code: 'TOO_MANY_STREAMS', error: place.message });
      return;
    }
    const visible = (event: HldpEvent): boolean => eventVisibleTo(principal, event) && (accepts === undefined || accepts(event));
    try {
      const stored = storedTypes(types);
      await streamEvents(hub, request, response, { ...(after === undefined ? {} : { after }), accepts: visible, ...(stored ? { types: stored } : {}) });
    } finally {
      place.release();
    }
  };
}
