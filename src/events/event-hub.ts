import type { EventLog, StoreBus, StoredEvent } from '../store/index.js';
import type { EventType, HldpEvent } from './event-types.js';
import { isEventType } from './event-types.js';
import { StreamQuota } from './stream-quota.js';

/** Where a subscriber starts: live from now, or after the event it saw last (SSE `Last-Event-ID`). */
export interface SubscribeOptions {
  /** the id of the last event the subscriber saw; absent: only events from now on */
  after?: number;
  /** which events it wants (the principal's filter, the types it asked for); absent: all */
  accepts?: (event: HldpEvent) => boolean;
  /** called for each event, in id order */
  send: (event: HldpEvent) => void;
  /** called instead of a replay when `after` is older than the backlog (or unknown): events were missed */
  reset: (info: ResetInfo) => void;
}

/** Why a subscriber could not resume, and where the log stands. */
export interface ResetInfo {
  reason: string;
  /** the id it asked to resume after */
  requested: number;
  /** the oldest id still kept */
  oldest: number;
  /** the newest id: the subscriber continues live after it */
  newest: number;
}

/** How a hub is built: the store's log and bus, and how hard it looks for other processes' events. */
export interface EventHubOptions {
  log: EventLog;
  /** tells other instances that events were appended (PostgreSQL NOTIFY); absent: only the poll finds them */
  bus?: StoreBus;
  /** how often to look for events other processes appended (the CLI, other instances), while anyone listens */
  pollMs?: number;
  /** how many events the log keeps for resuming */
  backlog?: number;
  /** this instance, to tell its own bus messages from the others' */
  origin?: string;
  onError?: (error: Error, what: string) => void;
}

interface Subscriber {
  options: SubscribeOptions;
  /** events that arrived while its replay was running */
  buffer: HldpEvent[] | undefined;
  last: number;
}

const TOPIC = 'events';
const PAGE = 500;

/** Decodes a row of the log; an unknown type or bad JSON (a newer version's row) is skipped. */
function decode(row: StoredEvent): HldpEvent | undefined {
  if (!isEventType(row.type)) return undefined;
  try {
    return { id: row.seq, type: row.type, at: new Date(row.at_ms).toISOString(), data: JSON.parse(row.data) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/**
 * The event stream of one process: appends events to the store's log (which gives their ids), and delivers every
 * event of the log — its own, the CLI's, other instances' — to its subscribers in id order, exactly once each.
 * A subscriber resumes after an id from the log's bounded backlog, or is told to reset.
 */
export class EventHub {
  /** the event streams each agent holds open, over every door to this hub */
  readonly streams = new StreamQuota();
  readonly #log: EventLog;
  readonly #options: EventHubOptions;
  readonly #subscribers = new Set<Subscriber>();
  readonly #pending = new Set<Promise<unknown>>();
  #delivered = 0;
  #catchingUp: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #appends = 0;
  #started = false;

  constructor(options: EventHubOptions) {
    this.#log = options.log;
    this.#options = options;
  }

  /** Starts delivering: from the log's current end, listening to the bus and polling for other processes' events. */
  async start(): Promise<void> {
    // a second start (a subscriber of `hldp mcp` asking, on a hub a server already started) changes nothing
    if (this.#started) return;
    this.#delivered = (await this.#log.bounds()).last;
    this.#started = true;
    if (this.#options.bus) {
      try {
        this.#unsubscribe = await this.#options.bus.subscribe(TOPIC, (message) => {
          if (message.origin !== this.#options.origin) this.#catchUp();
        });
      } catch (error) {
        this.#options.onError?.(error as Error, 'cannot listen for other instances\' events; polling finds them');
      }
    }
    const pollMs = this.#options.pollMs ?? 250;
    this.#timer = setInterval(() => {
      if (this.#subscribers.size > 0) this.#catchUp();
    }, pollMs);
    this.#timer.unref();
  }

  /** Appends an event to the log (asynchronously; `flush` waits for it), and delivers it once it has its id. */
  publish(type: EventType, data: Record<string, unknown>, at = Date.now()): void {
    const work = this.#log
      .append([{ type, at_ms: at, data: JSON.stringify(data) }])
      .then((stored) => {
        this.#appended(stored);
      })
      .catch((error: Error) => this.#options.onError?.(error, `event ${type} not stored`))
      .finally(() => this.#pending.delete(work));
    this.#pending.add(work);
  }

  /** Resolves when every event published so far is in the log (and delivered, if the hub is started). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    if (this.#started) await this.#catchUp();
  }

  /** Adds a subscriber; replays what it missed (or tells it to reset), then delivers live. Returns the unsubscribe function. */
  async subscribe(options: SubscribeOptions): Promise<() => void> {
    const subscriber: Subscriber = { options, buffer: options.after === undefined ? undefined : [], last: options.after ?? this.#delivered };
    this.#subscribers.add(subscriber);
    const unsubscribe = (): void => {
      this.#subscribers.delete(subscriber);
    };
    if (options.after === undefined) return unsubscribe;
    try {
      await this.#replay(subscriber, options.after);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /** The newest events of some types, newest first (the console's history of scans and rejected calls). */
  async recent(types: readonly EventType[], limit: number): Promise<HldpEvent[]> {
    return (await this.#newest((event) => types.includes(event.type), limit)).events;
  }

  /**
   * A page of the log for a client that polls rather than listens (MCP's `resources/read`): the events after `after`
   * that `accepts` lets through, oldest first, at most `limit`; without `after`, the newest `limit` of them. `last`
   * is where to ask next (the last id read, whether the client could see it or not). An `after` older than the
   * backlog, or never given, gets `reset` and no events, as a reconnecting SSE client does.
   */
  async page(after: number | undefined, limit: number, accepts: (event: HldpEvent) => boolean = () => true): Promise<{ events: HldpEvent[]; last: number; reset?: ResetInfo }> {
    if (after === undefined) {
      const { events, last } = await this.#newest(accepts, limit);
      return { events: events.reverse(), last };
    }
    const { first, last } = await this.#log.bounds();
    if (after < first - 1 || after > last) {
      const reason = after > last ? `event ${after} was never given here (the newest is ${last})` : `event ${after} is older than the backlog, which starts at ${first}`;
      return { events: [], last, reset: { reason, requested: after, oldest: first, newest: last } };
    }
    const events: HldpEvent[] = [];
    let read = after;
    for (;;) {
      const rows = await this.#log.after(read, PAGE);
      for (const row of rows) {
        const event = decode(row);
        if (event && accepts(event)) {
          if (events.length === limit) return { events, last: read };
          events.push(event);
        }
        read = row.seq;
      }
      if (rows.length < PAGE) return { events, last: read };
    }
  }

  /** The newest `limit` events `accepts` lets through, newest first, and the log's newest id. */
  async #newest(accepts: (event: HldpEvent) => boolean, limit: number): Promise<{ events: HldpEvent[]; last: number }> {
    const { first, last } = await this.#log.bounds();
    const found: HldpEvent[] = [];
    // read backwards a page at a time: the log has no index by type, and is bounded
    for (let end = last; end >= first && found.length < limit; end -= PAGE) {
      const rows = await this.#log.after(Math.max(first - 1, end - PAGE), PAGE);
      const page = rows.filter((row) => row.seq <= end).map(decode).filter((event): event is HldpEvent => event !== undefined && accepts(event));
      found.push(...page.reverse());
    }
    return { events: found.slice(0, limit), last };
  }

  /** How many subscribers are listening now. */
  get subscribers(): number {
    return this.#subscribers.size;
  }

  /** The id of the newest event delivered. */
  get lastId(): number {
    return this.#delivered;
  }

  /** Stops polling and listening; subscribers get nothing more. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    this.#started = false;
    this.#subscribers.clear();
    await this.#unsubscribe?.().catch(() => undefined);
  }

  async #replay(subscriber: Subscriber, after: number): Promise<void> {
    const { first, last } = await this.#log.bounds();
    if (after < first - 1 || after > last) {
      const reason = after > last ? `event ${after} was never given here (the newest is ${last})` : `event ${after} is older than the backlog, which starts at ${first}`;
      subscriber.last = Math.max(last, this.#delivered);
      const buffered = subscriber.buffer ?? [];
      subscriber.buffer = undefined;
      subscriber.options.reset({ reason, requested: after, oldest: first, newest: subscriber.last });
      for (const event of buffered) this.#offer(subscriber, event);
      return;
    }
    for (;;) {
      const rows = await this.#log.after(subscriber.last, PAGE);
      for (const row of rows) {
        const event = decode(row);
        subscriber.last = row.seq;
        if (event && (subscriber.options.accepts?.(event) ?? true)) subscriber.options.send(event);
      }
      if (rows.length < PAGE) break;
    }
    const buffered = subscriber.buffer ?? [];
    subscriber.buffer = undefined;
    for (const event of buffered) this.#offer(subscriber, event);
  }

  #appended(stored: StoredEvent[]): void {
    if (++this.#appends % 1000 === 0) {
      this.#log.prune(this.#options.backlog ?? 10_000).catch((error: Error) => this.#options.onError?.(error, 'pruning the event log failed'));
    }
    if (this.#options.bus) {
      this.#options.bus.publish(TOPIC, { origin: this.#options.origin ?? '', last: stored.at(-1)?.seq ?? 0 }).catch((error: Error) => this.#options.onError?.(error, 'cannot tell other instances of an event'));
    }
    if (!this.#started) return;
    // the common case needs no read: these are the next events of the log, and nothing is catching up
    if (!this.#catchingUp && stored[0]?.seq === this.#delivered + 1) {
      for (const row of stored) this.#deliver(row);
      return;
    }
    void this.#catchUp();
  }

  /** Reads and delivers what the log holds beyond the last delivered id; one pass at a time, another queued if asked meanwhile. */
  #catchUp(): Promise<void> {
    if (this.#catchingUp) {
      this.#again = true;
      return this.#catchingUp;
    }
    this.#catchingUp = (async () => {
      do {
        this.#again = false;
        for (;;) {
          const rows = await this.#log.after(this.#delivered, PAGE);
          for (const row of rows) this.#deliver(row);
          if (rows.length < PAGE) break;
        }
      } while (this.#again);
    })()
      .catch((error: Error) => this.#options.onError?.(error, 'cannot read the event log'))
      .finally(() => {
        this.#catchingUp = undefined;
      });
    return this.#catchingUp;
  }

  #deliver(row: StoredEvent): void {
    if (row.seq <= this.#delivered) return;
    this.#delivered = row.seq;
    const event = decode(row);
    if (!event) return;
    for (const subscriber of this.#subscribers) {
      if (subscriber.buffer) subscriber.buffer.push(event);
      else this.#offer(subscriber, event);
    }
  }

  #offer(subscriber: Subscriber, event: HldpEvent): void {
    if (event.id <= subscriber.last) return;
    subscriber.last = event.id;
    if (subscriber.options.accepts?.(event) ?? true) subscriber.options.send(event);
  }
}
