/** Milliseconds since the epoch, as `Date.now()` gives them: injectable, so tests move time without waiting for it. */
export type Clock = () => number;

/** The real clock. */
export const systemClock: Clock = () => Date.now();
