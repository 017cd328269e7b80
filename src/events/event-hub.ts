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
  /** the only types `accepts` may let through, when it is narrower than all: the replay reads only those from the store */
  types?: readonly EventType[];
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
/**
 * Most rows of the log one read of history decodes (`recent`, `page`): what the asker may not see still costs its
 * decoding, so a read that finds too few stops there (`page` says where it stopped in `last`).
 */
const MAX_READ_ROWS = 2000;

/** Lets other work run between store pages: better-sqlite3 answers without yielding to I/O. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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

  /**
   * Delivers events another writer appended to the log for this process (one written in a transaction with what it
   * announces, as approval.resolved is), and tells the other instances, as `publish` does once its append is done.
   */
  announced(stored: StoredEvent[]): void {
    this.#appended(stored);
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

  /** The newest events of some types, newest first (the console's history of scans and rejected calls); the store filters the types. */
  async recent(types: readonly EventType[], limit: number): Promise<HldpEvent[]> {
    return (await this.#newest((event) => types.includes(event.type), limit, types)).events;
  }

  /**
   * A page of the log for a client that polls rather than listens (MCP's `resources/read`): the events after `after`
   * that `accepts` lets through, oldest first, at most `limit`; without `after`, the newest `limit` of them. `last`
   * is where to ask next (the last id read, whether the client could see it or not). An `after` older than the
   * backlog, or never given, gets `reset` and no events, as a reconnecting SSE client does. `types`, when given, are
   * the only ones `accepts` lets through: the store reads only those. At most `MAX_READ_ROWS` rows are read.
   */
  async page(after: number | undefined, limit: number, accepts: (event: HldpEvent) => boolean = () => true, types?: readonly EventType[]): Promise<{ events: HldpEvent[]; last: number; reset?: ResetInfo }> {
    if (after === undefined) {
      const { events, last } = await this.#newest(accepts, limit, types);
      return { events: events.reverse(), last };
    }
    const { first, last } = await this.#log.bounds();
    if (after < first - 1 || after > last) {
      const reason = after > last ? `event ${after} was never given here (the newest is ${last})` : `event ${after} is older than the backlog, which starts at ${first}`;
      return { events: [], last, reset: { reason, requested: after, oldest: first, newest: last } };
    }
    const events: HldpEvent[] = [];
    let read = after;
    for (let rowsRead = 0; rowsRead < MAX_READ_ROWS; ) {
      if (rowsRead > 0) await turn();
      const rows = await this.#log.after(read, Math.min(PAGE, MAX_READ_ROWS - rowsRead), types);
      for (const row of rows) {
        const event = decode(row);
        if (event && accepts(event)) {
          if (events.length === limit) return { events, last: read };
          events.push(event);
        }
        read = row.seq;
      }
      rowsRead += rows.length;
      if (rows.length < PAGE) return { events, last: read };
    }
    return { events, last: read };
  }

  /** The newest `limit` events `accepts` lets through (of `types`, filtered by the store), newest first, and the log's newest id; reads at most `MAX_READ_ROWS` rows. */
  async #newest(accepts: (event: HldpEvent) => boolean, limit: number, types?: readonly EventType[]): Promise<{ events: HldpEvent[]; last: number }> {
    const { last } = await this.#log.bounds();
    const found: HldpEvent[] = [];
    let end = last;
    for (let rowsRead = 0; rowsRead < MAX_READ_ROWS && found.length < limit; ) {
      if (rowsRead > 0) await turn();
      const rows = await this.#log.newest(end, Math.min(PAGE, MAX_READ_ROWS - rowsRead), types);
      for (const row of rows) {
        const event = decode(row);
        if (event && accepts(event)) found.push(event);
      }
      rowsRead += rows.length;
      if (rows.length < PAGE) break;
      end = rows.at(-1)!.seq - 1;
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
    // the whole replay is sent (a client resumes without a gap), only its types read, a store page a turn
    for (;;) {
      const rows = await this.#log.after(subscriber.last, PAGE, subscriber.options.types);
      for (const row of rows) {
        const event = decode(row);
        subscriber.last = row.seq;
        if (event && (subscriber.options.accepts?.(event) ?? true)) subscriber.options.send(event);
      }
      if (rows.length < PAGE) break;
      await turn();
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
