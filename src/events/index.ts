// The event stream: the event types and what they say, the hub that appends to the store's log and delivers to subscribers, SSE, MCP resources, notifications out.
export { EVENT_TYPES, isEventType, isFailure, type EventType, type HldpEvent } from './event-types.js';
export { eventFilter } from './event-filter.js';
export { eventVisibleTo, overseesAll, type EventViewer } from './event-visibility.js';
export { EventHub, type EventHubOptions, type ResetInfo, type SubscribeOptions } from './event-hub.js';
export { lastEventId, streamEvents, type SseOptions } from './sse-response.js';
export { Notifier, signBody, type NotifierOptions, type NotifyTargetOptions } from './notifier.js';
export { announceBroken, brokenDefinitions, EVENT_PARAMS_CHARS, eventParams, receiptSummary } from './event-data.js';
export { eventStreamRoute } from './event-stream-route.js';
export { eventResources, EVENTS_TEMPLATE, EVENTS_URI, isEventsUri } from './event-resources.js';
export { startNotifications, type NotificationsReport } from './start-notifications.js';
