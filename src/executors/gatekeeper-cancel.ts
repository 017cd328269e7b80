import { randomBytes } from 'node:crypto';
import type { GatekeeperTarget } from './execution-context.js';
import { httpCall, joinUrl } from './http-call.js';

/** How long a cancelled call waits for the gatekeeper's CANCELLED answer before it hangs up. */
export const CANCEL_GRACE_MS = 2_000;

/** The header naming an `/exec` run to its gatekeeper, so that `POST /cancel` can stop it and its answer still comes back. */
export const RUN_ID_HEADER = 'x-hldp-run-id';

/** A caller's cancel turned into a gatekeeper's: the signal the request runs under, and the run's name. */
export interface GracefulCancel {
  /** sent as `x-hldp-run-id` with the `/exec` request */
  runId: string;
  /** fires when the request itself must stop: at once without a caller's cancel, else after the grace */
  signal: AbortSignal | undefined;
  /** stops the grace's timer; call it once the request is over */
  clear(): void;
}

/**
 * On the caller's cancel, asks the gatekeeper to stop the run (`POST /cancel {run_id}`) and lets its answer come, its
 * CANCELLED result with what the command printed and its process group killed; the request is dropped only when the
 * gatekeeper refuses (an older one has no such route) or after CANCEL_GRACE_MS. Dropping it at once, as before, lost
 * everything the command had printed: the receipt said `output: ""` (review userU, F6).
 */
export function cancelGracefully(target: GatekeeperTarget, signal: AbortSignal | undefined): GracefulCancel {
  const runId = randomBytes(16).toString('base64url');
  if (!signal) return { runId, signal: undefined, clear: () => undefined };
  const request = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const hangUp = (): void => request.abort();
  const onCancel = (): void => {
    timer = setTimeout(hangUp, CANCEL_GRACE_MS);
    askToCancel(target, runId).then((accepted) => accepted || hangUp(), hangUp);
  };
  // cancelled before it was sent: no run to ask about
  if (signal.aborted) hangUp();
  else signal.addEventListener('abort', onCancel, { once: true });
  return {
    runId,
    signal: request.signal,
    clear: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCancel);
    },
  };
}

async function askToCancel(target: GatekeeperTarget, runId: string): Promise<boolean> {
  const outcome = await httpCall({
    url: joinUrl(target.url, '/cancel'),
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ run_id: runId }),
    timeoutMs: CANCEL_GRACE_MS,
    maxBodyBytes: 1024,
  });
  return outcome.ok && outcome.status >= 200 && outcome.status <= 299;
}
