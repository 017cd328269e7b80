import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventHub, type HldpEvent, type ResetInfo } from '../../src/events/index.js';
import type { EventLog, Store } from '../../src/store/index.js';
import { runsHere, storeKinds, type StoreBackend } from '../store/backends.js';

function collector(): { events: HldpEvent[]; resets: ResetInfo[]; until(count: number): Promise<void>; send: (event: HldpEvent) => void; reset: (info: ResetInfo) => void } {
  const events: HldpEvent[] = [];
  const resets: ResetInfo[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  return {
    events,
    resets,
    send: (event) => {
      events.push(event);
      if (waiting && events.length >= waiting.count) waiting.resolve();
    },
    reset: (info) => resets.push(info),
    until: (count) => (events.length >= count ? Promise.resolve() : new Promise((resolve) => (waiting = { count, resolve }))),
  };
}

describe.each(storeKinds())('EventHub over a $name store', (kind) => {
  if (!runsHere(kind)) return;
  let backend: StoreBackend;
  let store: Store;
  const hubs: EventHub[] = [];

  const hub = async (other?: Store, options: { backlog?: number } = {}): Promise<EventHub> => {
    const target = other ?? store;
    const made = new EventHub({ log: target.events, ...(kind.name === 'PostgreSQL' ? { bus: target.bus } : {}), pollMs: 50, origin: `hub-${hubs.length}`, ...options });
    await made.start();
    hubs.push(made);
    return made;
  };

  beforeEach(async () => {
    backend = await kind.make();
    store = await backend.open();
  });
  afterEach(async () => {
    while (hubs.length) await hubs.pop()!.stop();
    await backend.cleanup();
  });

  describe('when events are published', () => {
    it('delivers each once, in id order, to every subscriber, with the filter applied', async () => {
      const events = await hub();
      const all = collector();
      const failures = collector();
      await events.subscribe({ send: all.send, reset: all.reset });
      await events.subscribe({ send: failures.send, reset: failures.reset, accepts: (event) => event.data.ok === false });
      for (let index = 0; index < 50; index += 1) events.publish('receipt.stored', { n: index, ok: index % 5 !== 0 });
      await all.until(50);
      await events.flush();
      expect(all.events.map((event) => event.data.n)).toEqual(Array.from({ length: 50 }, (_item, index) => index));
      expect(all.events.map((event) => event.id)).toEqual(Array.from({ length: 50 }, (_item, index) => index + 1));
      expect(failures.events.map((event) => event.data.n)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45]);
    });
  });

  describe('when another store over the same database appends (another process or instance)', () => {
    it('delivers those events too, in order, without loss', async () => {
      const here = await hub();
      const otherStore = await backend.open();
      const there = await hub(otherStore);
      const seen = collector();
      await here.subscribe({ send: seen.send, reset: seen.reset });
      for (let index = 0; index < 30; index += 1) (index % 2 ? here : there).publish('call.rejected', { n: index });
      await seen.until(30);
      expect(seen.events.map((event) => event.id)).toEqual(Array.from({ length: 30 }, (_item, index) => index + 1));
      expect(seen.events.map((event) => event.data.n).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 30 }, (_item, index) => index));
    });
  });

  describe('when a subscriber resumes', () => {
    it('replays what it missed, then goes on live without a gap or a repeat, even while events keep coming', async () => {
      const events = await hub();
      for (let index = 0; index < 20; index += 1) events.publish('receipt.stored', { n: index });
      await events.flush();
      const resumed = collector();
      const subscribing = events.subscribe({ after: 5, send: resumed.send, reset: resumed.reset });
      for (let index = 20; index < 40; index += 1) events.publish('receipt.stored', { n: index });
      await subscribing;
      await resumed.until(35);
      expect(resumed.resets).toEqual([]);
      expect(resumed.events.map((event) => event.id)).toEqual(Array.from({ length: 35 }, (_item, index) => index + 6));
    });

    it('gets a reset naming the backlog when its id is older than what the log keeps, then goes on live', async () => {
      const events = await hub();
      for (let index = 0; index < 20; index += 1) events.publish('receipt.stored', { n: index });
      await events.flush();
      await store.events.prune(5);
      const late = collector();
      await events.subscribe({ after: 3, send: late.send, reset: late.reset });
      expect(late.resets).toEqual([{ reason: 'event 3 is older than the backlog, which starts at 16', requested: 3, oldest: 16, newest: 20 }]);
      expect(late.events).toEqual([]);
      events.publish('scan.failed', { error: 'x' });
      await late.until(1);
      expect(late.events[0]).toMatchObject({ id: 21, type: 'scan.failed' });
      // an id at the edge of the backlog is still a resume
      const edge = collector();
      await events.subscribe({ after: 15, send: edge.send, reset: edge.reset });
      expect(edge.resets).toEqual([]);
      expect(edge.events.map((event) => event.id)).toEqual([16, 17, 18, 19, 20, 21]);
    });
  });

  describe('when the console asks for history', () => {
    it('returns the newest events of the asked types, newest first', async () => {
      const events = await hub();
      for (let index = 0; index < 1200; index += 1) events.publish(index % 100 === 0 ? 'scan.completed' : 'receipt.stored', { n: index });
      await events.flush();
      const scans = await events.recent(['scan.completed'], 5);
      expect(scans.map((event) => event.data.n)).toEqual([1100, 1000, 900, 800, 700]);
    });
  });

  // an agent fills the backlog at will (each approval request it files appends an event); a read of a rare type, or
  // of what one principal may see, must not decode all of it (review J F2)
  describe('when history is read over a large backlog of other events', () => {
    const BACKLOG = 3000;
    /** the hub over a log that counts the rows the store hands it */
    const countingHub = async (): Promise<{ events: EventHub; rows: () => number }> => {
      let rows = 0;
      const log = store.events;
      const counted: EventLog = {
        append: (batch) => log.append(batch),
        bounds: () => log.bounds(),
        prune: (keep) => log.prune(keep),
        claimDelivery: (seq, target, by, atMs) => log.claimDelivery(seq, target, by, atMs),
        after: async (seq, limit, types) => { const read = await log.after(seq, limit, types); rows += read.length; return read; },
        newest: async (seq, limit, types) => { const read = await log.newest(seq, limit, types); rows += read.length; return read; },
      };
      const events = new EventHub({ log: counted, pollMs: 50 });
      await events.start();
      hubs.push(events);
      return { events, rows: () => rows };
    };
    const fill = async (): Promise<void> => {
      const at = 1_780_000_000_000;
      await store.events.append([{ type: 'scan.failed', at_ms: at, data: JSON.stringify({ error: 'old' }) }]);
      await store.events.append(Array.from({ length: BACKLOG }, (_item, index) => ({ type: 'approval.requested', at_ms: at + index, data: JSON.stringify({ n: index, caller: 'bot' }) })));
      await store.events.append([{ type: 'scan.failed', at_ms: at + BACKLOG, data: JSON.stringify({ error: 'new' }) }]);
    };

    it('reads only the rows of the asked types (the console\'s scan history)', async () => {
      await fill();
      const { events, rows } = await countingHub();
      const scans = await events.recent(['scan.completed', 'scan.failed'], 30);
      expect(scans.map((event) => event.data.error)).toEqual(['new', 'old']);
      expect(rows()).toBe(2);
    });

    it('pages by type reading only those rows, oldest first after an id or newest without one (MCP hldp://events?types=)', async () => {
      await fill();
      const { events, rows } = await countingHub();
      const accepts = (event: HldpEvent): boolean => event.type === 'scan.failed';
      const newest = await events.page(undefined, 50, accepts, ['scan.failed']);
      expect(newest.events.map((event) => event.data.error)).toEqual(['old', 'new']);
      const after = await events.page(1, 50, accepts, ['scan.failed']);
      expect(after.events.map((event) => event.data.error)).toEqual(['new']);
      expect(after.last).toBe(BACKLOG + 2);
      expect(rows()).toBe(3);
    });

    it('reads at most 2,000 rows for a principal who sees none of them, and says where to ask on', async () => {
      await fill();
      const { events, rows } = await countingHub();
      const nobody = (): boolean => false;
      const first = await events.page(0, 50, nobody);
      expect(first).toEqual({ events: [], last: 2000 });
      expect(rows()).toBe(2000);
      const next = await events.page(first.last, 50, nobody);
      expect(next).toEqual({ events: [], last: BACKLOG + 2 });
      expect((await events.page(undefined, 50, nobody)).events).toEqual([]);
      expect(rows()).toBe(2000 + (BACKLOG + 2 - 2000) + 2000);
    });

    it('replays a resumed subscription of some types from those rows alone, whole (SSE with Last-Event-ID)', async () => {
      await fill();
      const { events, rows } = await countingHub();
      const seen = collector();
      await events.subscribe({ after: 0, types: ['scan.failed'], accepts: (event) => event.type === 'scan.failed', send: seen.send, reset: seen.reset });
      expect(seen.events.map((event) => event.data.error)).toEqual(['old', 'new']);
      expect(rows()).toBe(2);
    });
  });
});
