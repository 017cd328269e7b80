// The PostgreSQL store runs on the database's clock, read again each minute and carried forward by this process's
// monotonic clock. A reading is right only to within half its round trip; an event-loop stall while the reply waited
// to be read made a resync step the store's time back by up to half the stall (review Z21-6), and every lease and
// expiry judged by it with it. A reading within its own error is no news; a real step of the database's clock is.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DatabaseClock } from '../../src/store/postgres/database-clock.js';

let monotonic = 0;
afterEach(() => {
  vi.restoreAllMocks();
});
function atMonotonic(ms: number): void {
  monotonic = ms;
}

describe("the PostgreSQL store's clock", () => {
  it('takes its first reading, and carries it forward by the monotonic clock', () => {
    vi.spyOn(performance, 'now').mockImplementation(() => monotonic);
    atMonotonic(100);
    const clock = new DatabaseClock();
    clock.set({ at: 1_000_000, since: 90, error: 10 });
    expect(clock.now()).toBe(1_000_010);
    atMonotonic(60_100);
    expect(clock.now()).toBe(1_060_010);
  });

  it('does not step back at a resync whose reply waited out a 2 s stall', () => {
    vi.spyOn(performance, 'now').mockImplementation(() => monotonic);
    atMonotonic(0);
    const clock = new DatabaseClock();
    clock.set({ at: 1_000_000, since: 0, error: 1 });
    // sent at 60,000, the database answered at once (its 1,060,000), and the reply was read after a 2 s stall: the
    // reading's midpoint 61,000 is 1 s after the database's time, so taking it would put the clock 1 s back
    atMonotonic(62_000);
    const before = clock.now();
    clock.set({ at: 1_060_000, since: 61_000, error: 1_000 });
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    expect(clock.now()).toBe(1_062_000);
  });

  it("follows a step of the database's clock larger than the reading's error, back or forward", () => {
    vi.spyOn(performance, 'now').mockImplementation(() => monotonic);
    atMonotonic(0);
    const clock = new DatabaseClock();
    clock.set({ at: 1_000_000, since: 0, error: 1 });
    atMonotonic(60_000);
    clock.set({ at: 1_045_000, since: 60_000, error: 2 }); // the database's clock was set 15 s back
    expect(clock.now()).toBe(1_045_000);
    atMonotonic(120_000);
    clock.set({ at: 1_125_000, since: 120_000, error: 2 }); // and 20 s forward
    expect(clock.now()).toBe(1_125_000);
    atMonotonic(180_000);
    clock.set({ at: 1_185_001, since: 180_000, error: 2 }); // 1 ms off, within the reading's error: kept as it runs
    expect(clock.now()).toBe(1_185_000);
  });
});
