import type { Response } from 'express';

/**
 * A signal that fires when the caller hangs up before its answer was sent: a call run for it is cancelled (its
 * process group killed, a `CANCELLED` receipt stored), as the gatekeeper and MCP do. Before, `POST /v1/call` ran
 * every call to its end whoever was left to read it (review K, K7).
 */
export function hangUpSignal(response: Response): AbortSignal {
  const hangUp = new AbortController();
  // 'close' comes after a sent answer too: only one that ended before it was sent is a hang-up
  response.once('close', () => {
    if (!response.writableFinished) hangUp.abort(new Error('the caller hung up'));
  });
  return hangUp.signal;
}
