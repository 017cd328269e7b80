import { overseesAll, type EventViewer } from './event-visibility.js';

/** Streams one principal that oversees nothing (an agent) may hold open at once: each may queue up to 4 MiB. */
export const MAX_STREAMS_PER_AGENT = 16;

/** A place taken in the quota (`release` once the stream ends), or why none was given. */
export type StreamPlace = { ok: true; release: () => void } | { ok: false; message: string };

/**
 * The event streams each agent holds open, over every door that opens one (`GET /v1/events`, `/console/events`):
 * one count per principal, so a second door is no way around the first's bound. Admins and approvers are not
 * counted: they watch as they need.
 */
export class StreamQuota {
  readonly #open = new Map<string, number>();

  constructor(readonly most = MAX_STREAMS_PER_AGENT) {}

  /** Takes a place for `viewer`'s new stream, or says why not (it holds `most` already). */
  take(viewer: EventViewer): StreamPlace {
    if (overseesAll(viewer)) return { ok: true, release: () => undefined };
    const streams = this.#open.get(viewer.name) ?? 0;
    if (streams >= this.most) {
      return { ok: false, message: `principal '${viewer.name}' already has ${streams} event streams open (on /v1/events and /console/events together), the most one agent may hold; close one (a stream resumes where it left off with Last-Event-ID)` };
    }
    this.#open.set(viewer.name, streams + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.#open.get(viewer.name) ?? 1) - 1;
        if (left === 0) this.#open.delete(viewer.name);
        else this.#open.set(viewer.name, left);
      },
    };
  }
}
