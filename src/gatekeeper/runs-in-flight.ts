import { RUN_ID_HEADER } from '../executors/index.js';

// the header a caller names its `/exec` run with: the gateway's gatekeeper client sends it
export { RUN_ID_HEADER };

// long enough that a caller's random id is not guessed, short enough to keep in a map; an id unlike this is ignored
const RUN_ID = /^[A-Za-z0-9_-]{16,128}$/;

/** One run: the signal its method runs under, and its end, which forgets its name. */
export interface Run {
  signal: AbortSignal;
  /** stops the run (the caller hung up) */
  abort(): void;
  /** forgets the run once its answer is sent */
  end(): void;
}

/**
 * The `/exec` runs in flight that a caller named (header `x-hldp-run-id`). A caller that gives up asks `POST /cancel`
 * to stop its run and keeps the connection open: the run ends as CANCELLED, its process group killed, and its answer
 * carries what it printed until then. Hanging up stops it too, but then nothing of its output can come back (review
 * userU, F6). A run without a name, or with one already in flight, is not registered: only a hang-up stops it.
 */
export class RunsInFlight {
  readonly #runs = new Map<string, AbortController>();

  /** Starts a run, registered under `id` when it is a valid name no other run holds. */
  start(id: string | undefined): Run {
    const controller = new AbortController();
    const named = id !== undefined && RUN_ID.test(id) && !this.#runs.has(id) ? id : undefined;
    if (named !== undefined) this.#runs.set(named, controller);
    return {
      signal: controller.signal,
      abort: () => controller.abort(),
      end: () => {
        if (named !== undefined && this.#runs.get(named) === controller) this.#runs.delete(named);
      },
    };
  }

  /** Stops the run named `id`; false when no such run is in flight. */
  cancel(id: string): boolean {
    const controller = this.#runs.get(id);
    if (!controller) return false;
    controller.abort();
    return true;
  }
}
