// The event stream: the event types, the hub that appends to the store's log and delivers to subscribers, SSE, notifications out.
export { EVENT_TYPES, isEventType, isFailure, type EventType, type HldpEvent } from './event-types.js';
export { eventFilter } from './event-filter.js';
export { eventVisibleTo, overseesAll, type EventViewer } from './event-visibility.js';
export { EventHub, type EventHubOptions, type ResetInfo, type SubscribeOptions } from './event-hub.js';
export { lastEventId, streamEvents, type SseOptions } from './sse-response.js';
export { Notifier, signBody, type NotifierOptions, type NotifyTargetOptions } from './notifier.js';
