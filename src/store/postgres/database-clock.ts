import type { connect } from './database.js';

/** One reading of the database's clock: its time (`at`) when this process's monotonic clock read `since`, to within `error` ms. */
export interface ClockReading {
  at: number;
  since: number;
  error: number;
}

/**
 * The database's time: its clock as last read, carried forward by this process's monotonic clock. A reading is taken
 * at the middle of its round trip, so it is right only to within half of it; a later reading that agrees with the
 * running clock to within that is no news and is not taken. Else an event-loop stall during the reading (the reply
 * waiting to be read) stepped the store's time back by up to half the stall, and leases and expiries judged by it
 * moved with it (review Z21-6). A reading that disagrees by more (the database's clock stepped, or ours drifted) is
 * taken, forward or back.
 */
export class DatabaseClock {
  #at = Date.now();
  #since = performance.now();
  #read = false;
  set(reading: ClockReading): void {
    const running = this.#at + reading.since - this.#since;
    if (this.#read && Math.abs(reading.at - running) <= reading.error) return;
    this.#at = reading.at;
    this.#since = reading.since;
    this.#read = true;
  }
  now(): number {
    return Math.round(this.#at + performance.now() - this.#since);
  }
}

/** Reads the database's clock (`clock_timestamp()`, not the transaction's `now()`), to within half a round trip. */
export async function readDatabaseClock(sql: ReturnType<typeof connect>): Promise<ClockReading> {
  const sent = performance.now();
  const [{ ms }] = (await sql`SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS ms`) as unknown as [{ ms: number }];
  const received = performance.now();
  return { at: ms, since: (sent + received) / 2, error: (received - sent) / 2 };
}
