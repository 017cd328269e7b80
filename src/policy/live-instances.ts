import type { ApprovalRecord, InstanceRoll, LiveInstance, RunPlace } from '../store/index.js';
import { instancePlaceProblem } from './run-place.js';

// how often a serving process renews its row in the store's roll, and reads the others'
const BEAT_MS = 5_000;
// a row not renewed for this long is of a process that no longer serves (killed, or its host gone)
export const LIVE_MS = 30_000;
// how far apart the clocks of the hosts sharing a store may be, as far as telling a new request from an old one goes
const CLOCK_MARGIN_MS = 5_000;
// a row this old is removed by the next beat of any instance
const KEPT_MS = 10 * 60_000;

/**
 * This process in the store's roll of live instances, and what it last read of the others: while it serves it renews
 * its row (who it is, where it runs calls) and reads which instances serve now, so that it can tell an approver that
 * no gateway serving on the store would run an approved request's call — its filer was restarted with other settings,
 * or stopped — rather than offer an approval that only expires, unrun (review userZ6 F10).
 */
export class LiveInstances {
  readonly #roll: InstanceRoll;
  readonly #by: string;
  readonly #place: RunPlace;
  #timer: NodeJS.Timeout | undefined;
  // the instances serving as the last beat read them, and when
  #seen: { at: number; rows: LiveInstance[] } | undefined;

  constructor(roll: InstanceRoll, by: string, place: RunPlace) {
    this.#roll = roll;
    this.#by = by;
    this.#place = place;
  }

  /** Whether this process keeps a row in the roll (it serves, and its row was stored): a request it files says so, and its absence from the roll then means something. */
  get serving(): boolean {
    return this.#timer !== undefined && this.#seen !== undefined;
  }

  /**
   * Renews this process's row every few seconds until `stop`; resolves once the first is stored (or failed, said to
   * `onError`), so that a server is in the roll before it files any request.
   */
  start(onError: (error: Error) => void): Promise<void> {
    if (this.#timer !== undefined) return Promise.resolve();
    const beat = (): Promise<void> => this.beat().catch(onError);
    this.#timer = setInterval(() => void beat(), BEAT_MS).unref();
    return beat();
  }

  /** Renews this process's row and reads which instances serve now. */
  async beat(): Promise<void> {
    const now = Date.now();
    await this.#roll.beat(this.#by, this.#place, now - KEPT_MS);
    const rows = await this.#roll.live(now - LIVE_MS);
    // read before the rows: a request filed meanwhile counts as filed after the reading
    this.#seen = { at: now, rows };
  }

  /** Removes this process's row: it no longer serves (a request it filed is then run by an instance of its settings, if one serves). */
  async stop(): Promise<void> {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#seen = undefined;
    await this.#roll.leave(this.#by);
  }

  /**
   * Whether an instance serving now would run the request's approved call (one with the settings it was filed under):
   * undefined when that cannot be told — the request was filed by a process that kept no row in the roll (an older
   * version, a one-shot CLI), or this process has not read the roll lately (it does not serve, or the store did not answer).
   */
  runsIt(record: ApprovalRecord): boolean | undefined {
    const seen = this.#seen;
    if (record.rule.filed_by?.roll !== true || record.rule.place === undefined || seen === undefined || Date.now() - seen.at > LIVE_MS) return undefined;
    // a request filed after the roll was read may be of an instance that started since (each is in the roll before it
    // files anything): the next beat tells; a few seconds' margin for the clocks of other hosts
    if (Date.parse(record.created_at) >= seen.at - CLOCK_MARGIN_MS) return undefined;
    return seen.rows.some((row) => instancePlaceProblem(record, row.place, { by: row.by, url: null }) === undefined);
  }
}
