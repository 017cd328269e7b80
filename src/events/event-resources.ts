import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { eventFilter, storedTypes } from './event-filter.js';
import type { EventHub } from './event-hub.js';
import type { EventType, HldpEvent } from './event-types.js';
import { eventVisibleTo, type EventViewer } from './event-visibility.js';

/** The event stream as an MCP resource: read a page of it, or subscribe to hear when it grows. */
export const EVENTS_URI = 'hldp://events';

/** Distinct `hldp://events…` URIs one MCP connection may subscribe to at once; beyond it `resources/subscribe` is refused. */
export const MAX_EVENT_SUBSCRIPTIONS = 16;

/** How `resources/templates/list` describes it. */
export const EVENTS_TEMPLATE = {
  uriTemplate: `${EVENTS_URI}{?after,types,limit}`,
  name: 'events',
  title: 'Event stream (hldp tail)',
  description:
    'What happens at the gateway, as GET /v1/events streams it, only what your principal may see: receipt.stored, call.rejected, approval.requested, ' +
    'approval.resolved, scan.completed, scan.failed, definitions.broken. Read hldp://events for the newest events, hldp://events?after=ID for those after an id ' +
    '(then ask after the answer\'s "last"); types=failures,approval.requested narrows it; limit (default 50, at most 500). Subscribe to hldp://events ' +
    '(or with ?types=) and notifications/resources/updated says when there is more to read (at most ' + MAX_EVENT_SUBSCRIPTIONS + ' distinct URIs per connection).',
  mimeType: 'application/json',
};

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/** What a `hldp://events…` URI asks for. */
interface EventsQuery {
  after?: number;
  limit: number;
  accepts?: (event: HldpEvent) => boolean;
  /** the types `accepts` may let through, which the store reads alone */
  types?: EventType[];
}

/** Whether a URI names the event stream. */
export function isEventsUri(uri: string): boolean {
  return uri === EVENTS_URI || uri.startsWith(`${EVENTS_URI}?`);
}

/** The query of a `hldp://events?…` URI, or what is wrong with it (in words that say what to send). */
function parseEventsUri(uri: string): EventsQuery | string {
  const parameters = new URLSearchParams(uri.slice(EVENTS_URI.length + 1));
  const unknown = [...parameters.keys()].filter((key) => !['after', 'types', 'limit'].includes(key));
  if (unknown.length > 0) return `unknown parameter '${unknown[0]!.slice(0, 40)}' in ${EVENTS_URI}; use after, types and limit (${EVENTS_TEMPLATE.uriTemplate})`;
  const after = parameters.get('after');
  if (after !== null && !/^\d{1,15}$/.test(after)) return `after must be the id of an event (a non-negative integer), got '${after.slice(0, 40)}'`;
  const limitText = parameters.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return `limit must be an integer from 1 to ${MAX_LIMIT}, got '${String(limitText).slice(0, 40)}'`;
  const typesText = parameters.get('types');
  const types = typesText === null ? undefined : typesText.split(',').map((type) => type.trim()).filter(Boolean);
  const accepts = eventFilter(types);
  if (typeof accepts === 'string') return accepts;
  const stored = storedTypes(types);
  return { ...(after === null ? {} : { after: Number(after) }), limit, ...(accepts ? { accepts } : {}), ...(stored ? { types: stored } : {}) };
}

/**
 * The event stream of one MCP connection, for the principal it acts for (`viewer`: undefined once that principal
 * was removed from the config; `eventVisibleTo`, as SSE filters it):
 * `read` answers `resources/read` of `hldp://events…` with a page of events, `subscribe` sends
 * `notifications/resources/updated` for the subscribed URI when an event it would show arrives (at most one per
 * turn of the event loop), `close` ends every subscription.
 */
export function eventResources(hub: EventHub, server: Server, viewer: () => EventViewer | undefined) {
  // a URI's entry is made before the awaits of subscribing (`undefined` while in flight), so a second subscribe to
  // it, an unsubscribe or the connection's close during them cannot leave a hub subscriber nobody removes
  const subscriptions = new Map<string, { unsubscribe?: () => void }>();
  let closed = false;
  const visible = (event: HldpEvent): boolean => {
    const principal = viewer();
    // a principal removed from the config since the connection opened sees nothing more
    return principal !== undefined && eventVisibleTo(principal, event);
  };
  return {
    async read(uri: string): Promise<{ contents: Array<{ uri: string; mimeType: string; text: string }> }> {
      const query = parseEventsUri(uri);
      if (typeof query === 'string') throw await invalidParams(query);
      const page = await hub.page(query.after, query.limit, (event) => visible(event) && (query.accepts?.(event) ?? true), query.types);
      const text = JSON.stringify({ events: page.events, last: page.last, ...(page.reset ? { reset: page.reset } : {}) });
      return { contents: [{ uri, mimeType: 'application/json', text }] };
    },
    async subscribe(uri: string): Promise<void> {
      const query = parseEventsUri(uri);
      if (typeof query === 'string') throw await invalidParams(query);
      if (closed) throw new Error('this MCP connection is closed');
      if (subscriptions.has(uri)) return;
      if (subscriptions.size >= MAX_EVENT_SUBSCRIPTIONS) {
        // loaded here, not at the top: the events folder is on `hldp serve`'s path to listening, the MCP SDK is not (issue #18)
        const { ErrorCode, McpError } = await import('@modelcontextprotocol/sdk/types.js');
        throw new McpError(ErrorCode.InvalidRequest, `at most ${MAX_EVENT_SUBSCRIPTIONS} ${EVENTS_URI} subscriptions per connection; unsubscribe from one (resources/unsubscribe) or subscribe to ${EVENTS_URI} with a wider ?types=`);
      }
      const entry: { unsubscribe?: () => void } = {};
      subscriptions.set(uri, entry);
      let unsubscribe: (() => void) | undefined;
      try {
        // `hldp mcp` has no server that started the hub: the first subscriber starts it (polling the store for other processes' events)
        await hub.start();
        let pending = false;
        unsubscribe = await hub.subscribe({
          accepts: (event) => visible(event) && (query.accepts?.(event) ?? true),
          send: () => {
            if (pending) return;
            pending = true;
            setImmediate(() => {
              pending = false;
              void server.sendResourceUpdated({ uri }).catch(() => undefined);
            });
          },
          reset: () => undefined,
        });
      } catch (error) {
        if (subscriptions.get(uri) === entry) subscriptions.delete(uri);
        throw error;
      }
      // closed, or unsubscribed from, while subscribing: nobody wants it any more
      if (closed || subscriptions.get(uri) !== entry) {
        unsubscribe();
        return;
      }
      entry.unsubscribe = unsubscribe;
    },
    unsubscribe(uri: string): void {
      subscriptions.get(uri)?.unsubscribe?.();
      subscriptions.delete(uri);
    },
    close(): void {
      closed = true;
      for (const entry of subscriptions.values()) entry.unsubscribe?.();
      subscriptions.clear();
    },
  };
}

// a caller's bad URI is JSON-RPC's invalid params (-32602), not an internal error (-32603) the server is to blame for
// (review userX, X6); the SDK is loaded here, not at the top, as above
async function invalidParams(message: string): Promise<Error> {
  const { ErrorCode, McpError } = await import('@modelcontextprotocol/sdk/types.js');
  return new McpError(ErrorCode.InvalidParams, message);
}
