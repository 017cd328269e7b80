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

/**
 * The longest `hldp://events…` URI taken: every query of the template fits (all the types, after and limit are ~200
 * characters). A subscription's URI is held and sent in each of its notifications: unbounded, 16 subscriptions of a
 * 900,000-character URI made every event queue 14 MB on an unread stream (review Z16-2).
 */
export const MAX_EVENTS_URI_LENGTH = 256;

/** What a `hldp://events…` URI asks for. */
interface EventsQuery {
  after?: number;
  limit: number;
  accepts?: (event: HldpEvent) => boolean;
  /** the types `accepts` may let through, which the store reads alone */
  types?: EventType[];
  /** one text for every URI of the same query (parameters and types in any order): what subscriptions are keyed by */
  canonical: string;
}

/** Whether a URI names the event stream. */
export function isEventsUri(uri: string): boolean {
  return uri === EVENTS_URI || uri.startsWith(`${EVENTS_URI}?`);
}

/**
 * The query of a `hldp://events?…` URI, or what is wrong with it (in words that say what to send). Strict: a number
 * is written as a number is (no leading zeros), a parameter or a type is given once — so one query has few spellings.
 */
function parseEventsUri(uri: string): EventsQuery | string {
  if (uri.length > MAX_EVENTS_URI_LENGTH) return `an ${EVENTS_URI} URI is at most ${MAX_EVENTS_URI_LENGTH} characters, got ${uri.length} (${EVENTS_TEMPLATE.uriTemplate})`;
  const parameters = new URLSearchParams(uri.slice(EVENTS_URI.length + 1));
  const keys = [...parameters.keys()];
  const unknown = keys.filter((key) => !['after', 'types', 'limit'].includes(key));
  if (unknown.length > 0) return `unknown parameter '${unknown[0]!.slice(0, 40)}' in ${EVENTS_URI}; use after, types and limit (${EVENTS_TEMPLATE.uriTemplate})`;
  const repeated = keys.find((key, at) => keys.indexOf(key) !== at);
  if (repeated !== undefined) return `'${repeated}' is given more than once in ${EVENTS_URI}; give each of after, types and limit at most once`;
  const after = parameters.get('after');
  if (after !== null && !/^(0|[1-9]\d{0,14})$/.test(after)) return `after must be the id of an event (a non-negative integer without leading zeros), got '${after.slice(0, 40)}'`;
  const limitText = parameters.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : /^[1-9]\d{0,2}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit <= MAX_LIMIT)) return `limit must be an integer from 1 to ${MAX_LIMIT} (without leading zeros), got '${String(limitText).slice(0, 40)}'`;
  const typesText = parameters.get('types');
  const types = typesText === null ? undefined : typesText.split(',').map((type) => type.trim()).filter(Boolean);
  const twice = types?.find((type, at) => types.indexOf(type) !== at);
  if (twice !== undefined) return `types lists '${twice.slice(0, 40)}' more than once; name each type once`;
  const accepts = eventFilter(types);
  if (typeof accepts === 'string') return accepts;
  const stored = storedTypes(types);
  const canonical = JSON.stringify([after === null ? null : Number(after), limit, [...(types ?? [])].sort()]);
  return { ...(after === null ? {} : { after: Number(after) }), limit, ...(accepts ? { accepts } : {}), ...(stored ? { types: stored } : {}), canonical };
}

/**
 * The event stream of one MCP connection, for the principal it acts for (`viewer`: undefined once that principal
 * was removed from the config; `eventVisibleTo`, as SSE filters it):
 * `read` answers `resources/read` of `hldp://events…` with a page of events, `subscribe` sends
 * `notifications/resources/updated` for the subscribed URI when an event it would show arrives (at most one per
 * turn of the event loop), `close` ends every subscription.
 */
export function eventResources(hub: EventHub, server: Server, viewer: () => EventViewer | undefined) {
  // a query's entry is made before the awaits of subscribing (`undefined` while in flight), so a second subscribe to
  // it, an unsubscribe or the connection's close during them cannot leave a hub subscriber nobody removes; keyed by the
  // query's canonical form, so spellings of one query are one subscription (review Z16-2)
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
      const key = query.canonical;
      if (subscriptions.has(key)) return;
      if (subscriptions.size >= MAX_EVENT_SUBSCRIPTIONS) {
        // loaded here, not at the top: the events folder is on `hldp serve`'s path to listening, the MCP SDK is not (issue #18)
        const { ErrorCode, McpError } = await import('@modelcontextprotocol/sdk/types.js');
        throw new McpError(ErrorCode.InvalidRequest, `at most ${MAX_EVENT_SUBSCRIPTIONS} ${EVENTS_URI} subscriptions per connection; unsubscribe from one (resources/unsubscribe) or subscribe to ${EVENTS_URI} with a wider ?types=`);
      }
      const entry: { unsubscribe?: () => void } = {};
      subscriptions.set(key, entry);
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
        if (subscriptions.get(key) === entry) subscriptions.delete(key);
        throw error;
      }
      // closed, or unsubscribed from, while subscribing: nobody wants it any more
      if (closed || subscriptions.get(key) !== entry) {
        unsubscribe();
        return;
      }
      entry.unsubscribe = unsubscribe;
    },
    unsubscribe(uri: string): void {
      // a URI never taken was never subscribed to: nothing to end
      const query = parseEventsUri(uri);
      if (typeof query === 'string') return;
      subscriptions.get(query.canonical)?.unsubscribe?.();
      subscriptions.delete(query.canonical);
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
