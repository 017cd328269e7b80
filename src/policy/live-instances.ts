import type { ApprovalRecord, InstanceRoll, LiveInstance, RunPlace } from '../store/index.js';
import { instancePlaceProblem } from './run-place.js';

// how often a serving process renews its row in the store's roll, and reads the others'
const BEAT_MS = 5_000;
// a row renewed within this long (by the roll's clock) is of a process that serves now
export const LIVE_MS = 30_000;
// a row not renewed for this long (by the roll's clock) is of a process that no longer serves (killed, or its host
// gone): far longer than a live row's 30 s, so that a process whose loop or store was held for a while is not taken for
// gone, and an approval it would run refused
const QUIET_MS = 2 * 60_000;
// a row quiet this long is removed by the next beat of any instance, unless a pending request names it as its filer:
// that row stays until the request is decided or expires (up to 7 days), so that a filer that left is known to have
// left while its request waits (review Z14, Z14-6: once removed, an approver was offered an approval nothing would run)
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
  // a beat stored this process's row since it started
  #inRoll = false;

  constructor(roll: InstanceRoll, by: string, place: RunPlace) {
    this.#roll = roll;
    this.#by = by;
    this.#place = place;
  }

  /** Whether this process keeps a row in the roll (it serves, and its row was stored): a request it files says so, and its absence from the roll then means something. */
  get serving(): boolean {
    return this.#timer !== undefined && this.#inRoll;
  }

  /**
   * Renews this process's row every few seconds until `stop`; resolves once the first is stored (or failed, said to
   * `onError`), so that a server is in the roll before it files any request. A failed beat, or one that found the store
   * locked by another process, is said to `onError` with `first` true only for the first of a streak of them: the
   * gateway warns once, not every 5 s (review Z12, Z12-8).
   */
  start(onError: (error: Error, first: boolean) => void): Promise<void> {
    if (this.#timer !== undefined) return Promise.resolve();
    let failing = false;
    const failed = (error: Error): void => {
      onError(error, !failing);
      failing = true;
    };
    const beat = (): Promise<void> =>
      this.beat().then(
        (renewed) => {
          if (renewed) failing = false;
          else failed(new Error("the store was locked by another process: this instance's row in the roll of live instances is renewed at a later beat"));
        },
        (error: unknown) => failed(error instanceof Error ? error : new Error(String(error))),
      );
    this.#timer = setInterval(() => void beat(), BEAT_MS).unref();
    return beat();
  }

  /** Renews this process's row (false: the store was locked by another process, it is renewed at a later beat) and reads which instances serve now. */
  async beat(): Promise<boolean> {
    const at = Date.now();
    const { rows, renewed } = await this.#roll.beat(this.#by, this.#place, KEPT_MS);
    // `at`, this process's clock, only says how fresh its own reading is
    this.#seen = { at, rows };
    this.#inRoll ||= renewed;
    return renewed;
  }

  /** Marks this process's row as left: it no longer serves (a request it filed is then run by an instance of its settings, if one serves). */
  async stop(): Promise<void> {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#seen = undefined;
    this.#inRoll = false;
    await this.#roll.leave(this.#by);
  }

  /**
   * Whether an instance serving now would run the request's approved call (one with the settings it was filed under):
   * undefined when that cannot be told — the request was filed by a process that kept no row in the roll (an older
   * version, a one-shot CLI), this process has not read the roll lately (it does not serve, or the store did not
   * answer), or the filer's row was not among those read (it started since; a filer's row stays while a request it filed is pending):
   * false only when the filer's row was seen to leave, or to stay quiet for minutes, and no other instance with its
   * settings serves. No two hosts' clocks are compared: a skew refused approvals the filer would run (review Z12, Z12-8).
   */
  runsIt(record: ApprovalRecord): boolean | undefined {
    const seen = this.#seen;
    if (record.rule.filed_by?.roll !== true || record.rule.place === undefined || seen === undefined || Date.now() - seen.at > LIVE_MS) return undefined;
    const its = seen.rows.filter((row) => instancePlaceProblem(record, row.place, { by: row.by, url: null }) === undefined);
    if (its.some(serves)) return true;
    // one not seen for a while, but not for long: it may be held up rather than gone
    if (its.some((row) => !gone(row))) return undefined;
    const filer = seen.rows.find((row) => row.by === record.rule.filed_by?.by);
    return filer !== undefined && gone(filer) ? false : undefined;
  }

  /**
   * How long ago the request's filer said it stopped serving (ms), when that was within a restart's time: it may be
   * restarting (a rolling restart, an upgrade), and an approver told only to deny would drop a request that runs once it
   * is back (review userZ8, M3). Undefined when it did not leave, left long ago, or the roll was not read.
   */
  leftAgo(record: ApprovalRecord): number | undefined {
    const seen = this.#seen;
    const filer = seen?.rows.find((row) => row.by === record.rule.filed_by?.by);
    return seen !== undefined && filer?.left === true && filer.quiet_ms <= QUIET_MS ? filer.quiet_ms + (Date.now() - seen.at) : undefined;
  }
}

function serves(row: LiveInstance): boolean {
  return !row.left && row.quiet_ms <= LIVE_MS;
}

function gone(row: LiveInstance): boolean {
  return row.left || row.quiet_ms > QUIET_MS;
}
