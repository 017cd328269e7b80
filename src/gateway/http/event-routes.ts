import express, { type Router } from 'express';
import { eventFilter, eventVisibleTo, lastEventId, streamEvents, type HldpEvent } from '../../events/index.js';
import type { Gateway } from '../service/index.js';
import { principalOf } from './principal-auth.js';

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
