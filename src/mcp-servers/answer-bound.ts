import { AsyncLocalStorage } from 'node:async_hooks';

/** What cuts the long strings of an answer as it streams by (the executors' JsonStringCutter). */
export interface AnswerCutter {
  /** the bytes to hand on for `chunk` */
  push(chunk: Uint8Array): Uint8Array;
}

/** A call's bound on its answer, what cuts its long strings, and whether the call is over (its answer came, or it failed or was cancelled). */
export interface CallBound {
  readonly maxBytes: number;
  /** what cuts the long strings of this call's HTTP answer */
  readonly cutter?: AnswerCutter;
  /** makes another cutter: one per stdio line that may be this call's answer (the last one made cut the answer) */
  readonly newCutter?: () => AnswerCutter;
  over: boolean;
}

/** The bound of the answers to the requests made within `withAnswerBound`, below the server's own. */
const callBounds = new AsyncLocalStorage<CallBound>();

/**
 * Runs `send` with the answers to the requests it makes (a `tools/call`) bounded to `maxBytes`, where the server's
 * bound is for any answer: a tool capped at 64 KiB had its server's 60 MiB answer read whole and parsed before it was
 * cut, 394 MB of the gateway's peak RSS and 20.8 s (review O, O14; over stdio, review S, S9). The bound follows the
 * request through the SDK's awaits to the transport that sends it (the HTTP fetch, the stdio server's stdin). With
 * `newCutter`, the answer's long strings are cut as they arrive and the bound holds what is left.
 */
export async function withAnswerBound<T>(maxBytes: number, send: () => Promise<T>, newCutter?: () => AnswerCutter): Promise<T> {
  const bound: CallBound = newCutter ? { maxBytes, cutter: newCutter(), newCutter, over: false } : { maxBytes, over: false };
  try {
    return await callBounds.run(bound, send);
  } finally {
    bound.over = true;
  }
}

/** The bound of the call whose request is being sent now (within `withAnswerBound`), if any. */
export function currentAnswerBound(): CallBound | undefined {
  return callBounds.getStore();
}

/** The data of the error a call fails with when a message from the server passed its bound: made here, so no server can send one. */
export class AnswerTooLarge {
  constructor(readonly how: string) {}
}
