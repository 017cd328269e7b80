import { createHmac } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { secretsEqual } from '../http-edge/index.js';
import type { PushHint } from '../scanner/index.js';

/** What the route asks of the gateway's rescans (its RescanScheduler): a rescan, with the push that asked for it. */
export interface RescanRequests {
  request(reason: string, pushed?: PushHint): void;
}

/** How many webhook bodies may be read at once, before their signature can be checked: the rest wait, 503 (review Z8, Z8-3). */
export const WEBHOOK_BODIES_IN_FLIGHT = 8;
/** How long a webhook body may take to arrive once its headers have: a sender that holds one open is cut off (review Z8, Z8-3). */
const WEBHOOK_BODY_MS = 15_000;
/**
 * Before the whole 15 s, a body must keep arriving: after a grace of 3 s, at 8 KiB a second on average (a push's few KiB
 * come in one write). 8 senders of a stalled body held every webhook out for 15 s, renewable (review Z9, Z9-4); now
 * for 3 s, or at the price of sending 64 KiB a second.
 */
const WEBHOOK_BODY_GRACE_MS = 3_000;
const WEBHOOK_BODY_BYTES_PER_SECOND = 8 * 1024;
const WEBHOOK_BODY_CHECK_MS = 500;

/**
 * `POST /v1/hooks/forgejo`: verifies the HMAC-SHA256 of the raw body, answers 202 at once, rescans in the background,
 * and `announce`s the push so that the other instances sharing the store rescan too. The only route that reads a body
 * before it knows who sent it: so it answers before reading one whatever it can (webhooks off, no signature header, a
 * declared length past the limit), and reads at most WEBHOOK_BODIES_IN_FLIGHT at once. It buffered up to 1 MiB of any
 * connection's body first, webhooks on or off: 300 connections held +270 MB for 305 s (review Z8, Z8-3).
 */
export function webhookRouter(options: { secret: string | undefined; maxBodyBytes: number; scheduler: RescanRequests; announce?: (reason: string) => void; served?: () => { source: string; commit: string } }): Router {
  const router = express.Router();
  const readBody = express.raw({ type: () => true, limit: options.maxBodyBytes });
  let reading = 0;
  router.post('/v1/hooks/forgejo', (request, response, next) => {
    if (!options.secret) {
      response.status(404).json({ code: 'WEBHOOKS_OFF', error: 'webhooks are off: set webhook_secret in the config (or HLDP_WEBHOOK_SECRET) and the same secret in Forgejo' });
      return;
    }
    const given = signatureOf(request.get('x-forgejo-signature') ?? request.get('x-gitea-signature') ?? request.get('x-hub-signature-256'));
    if (!given || !HEX_SHA256.test(given)) {
      response.status(401).json({ code: 'BAD_SIGNATURE', error: 'missing or wrong X-Forgejo-Signature: it must be the hex HMAC-SHA256 of the raw body with the webhook secret' });
      return;
    }
    const declared = Number(request.get('content-length') ?? 0);
    if (declared > options.maxBodyBytes) {
      response.status(413).json({ code: 'PAYLOAD_TOO_LARGE', error: `the request body is over the limit of ${options.maxBodyBytes} bytes; send less` });
      return;
    }
    if (reading >= WEBHOOK_BODIES_IN_FLIGHT) {
      response.status(503).set('Retry-After', '1').json({ code: 'WEBHOOKS_BUSY', error: `the gateway is reading ${WEBHOOK_BODIES_IN_FLIGHT} webhook bodies already; send again after Retry-After (the repository poll finds the push meanwhile)` });
      return;
    }
    reading += 1;
    let done = false;
    const leave = (): void => {
      if (done) return;
      done = true;
      reading -= 1;
      clearInterval(deadline);
    };
    // a body still arriving past its deadline, or arriving slower than the floor, is a sender holding a place: its
    // connection ends
    const deadline = bodyDeadline(request, () => !done);
    request.once('close', leave);
    readBody(request, response, (error?: unknown) => {
      leave();
      if (error) return next(error);
      answer(options, given, request.body, request.get.bind(request), response);
    });
  });
  return router;
}

/** Checks every WEBHOOK_BODY_CHECK_MS that `request`'s body is arriving fast enough, and ends its connection when not. */
function bodyDeadline(request: Request, reading: () => boolean): NodeJS.Timeout {
  const { socket } = request;
  const started = Date.now();
  const before = socket.bytesRead;
  const behind = (): boolean => {
    const elapsed = Date.now() - started;
    return elapsed >= WEBHOOK_BODY_MS || socket.bytesRead - before < ((elapsed - WEBHOOK_BODY_GRACE_MS) / 1000) * WEBHOOK_BODY_BYTES_PER_SECOND;
  };
  const check = setInterval(() => {
    if (!behind()) return;
    // timers run before a loop's reads: bytes that came while the loop was busy are read first, then looked at again
    setImmediate(() => {
      if (reading() && behind()) request.destroy();
    });
  }, WEBHOOK_BODY_CHECK_MS);
  return check.unref();
}

/** The answer to a webhook whose body was read: its signature checked, then what it asks. */
function answer(options: { secret: string | undefined; scheduler: RescanRequests; announce?: (reason: string) => void; served?: () => { source: string; commit: string } }, given: string, received: unknown, header: (name: string) => string | undefined, response: Response): void {
  const body = Buffer.isBuffer(received) ? received : Buffer.alloc(0);
  // the signature covers the raw bytes as sent, never re-serialised JSON
  const expected = createHmac('sha256', options.secret!).update(body).digest('hex');
  if (!secretsEqual(given.toLowerCase(), expected)) {
    response.status(401).json({ code: 'BAD_SIGNATURE', error: 'missing or wrong X-Forgejo-Signature: it must be the hex HMAC-SHA256 of the raw body with the webhook secret' });
    return;
  }
  // signed, so the sender holds the secret: a body that is not a JSON object is a misconfigured webhook (Forgejo's
  // form-encoded content type), told so rather than accepted and rescanned for (review R, R1)
  const problem = payloadProblem(body);
  if (problem) {
    response.status(400).json(problem);
    return;
  }
  // the event is outside the signature: one that is not said is not taken for a push (review Z8, Z8-7)
  const event = header('x-forgejo-event') ?? header('x-gitea-event') ?? header('x-github-event');
  if (event === undefined) {
    response.status(400).json({ code: 'INVALID_REQUEST', error: 'no X-Forgejo-Event header (nor X-Gitea-Event, X-GitHub-Event): a webhook says which event it is (Forgejo sends it with every delivery)' });
    return;
  }
  // the delivery id is outside the signature: kept only as an id looks (Forgejo sends a UUID), since it goes into the
  // announcement the other instances get (PostgreSQL's NOTIFY refuses a payload past ~8,000 bytes) and the logs
  const claimed = header('x-forgejo-delivery') ?? header('x-gitea-delivery');
  const delivery = claimed !== undefined && DELIVERY_ID.test(claimed) ? claimed : null;
  if (event !== 'push') {
    response.status(202).json({ accepted: true, event, delivery, rescan: 'ignored', reason: `a '${event.slice(0, 64)}' event changes no definition: only a push is rescanned for` });
    return;
  }
  const push = pushOf(body);
  const served = options.served?.();
  // a push of the commit already served (a replayed delivery of the last push, say) has nothing new to read
  if (served && push && push.after === served.commit) {
    response.status(202).json({ accepted: true, event, delivery, rescan: 'current', reason: `commit ${push.after} is the one served` });
    return;
  }
  // a push naming another repository is still signed, so its sender holds the secret: a renamed or mirrored repository
  // (Forgejo keeps a redirect, so the gateway still fetches the old name) pushes under its new name, and ignoring it left
  // the push unserved until the poll, never with the poll off (review Z9, Z9-3). It rescans, cheap and coalesced, but
  // without the push's commit as a hint (the head check of the repository served decides), and says the names differ
  const foreign = served ? foreignRepository(body, served.source) : undefined;
  const reason = `webhook ${delivery ?? ''}`.trim();
  options.scheduler.request(reason, foreign ? undefined : push);
  options.announce?.(reason);
  if (foreign) {
    response.status(202).json({ accepted: true, event, delivery, rescan: 'scheduled', names_differ: `the push names ${foreign}, not the repository served (${served!.source}): rescanned the repository served anyway, since the delivery is signed; if the repository was renamed or moved, point the gateway's repository at its new URL (or give this webhook a secret of its own)` });
    return;
  }
  response.status(202).json({ accepted: true, event, delivery, rescan: 'scheduled' });
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** The repository a push names (its owner/name), when it names one and the remote source served is another; else undefined. */
function foreignRepository(body: Buffer, source: string): string | undefined {
  const served = ownerAndName(source);
  if (!served) return undefined;
  let repository: unknown;
  try {
    repository = (JSON.parse(body.toString('utf8')) as { repository?: unknown }).repository;
  } catch {
    return undefined;
  }
  if (typeof repository !== 'object' || repository === null) return undefined;
  const urls = ['clone_url', 'html_url', 'ssh_url'].map((field) => (repository as Record<string, unknown>)[field]).filter((value): value is string => typeof value === 'string');
  if (urls.length === 0) return undefined;
  const named = urls.map(ownerAndName).filter((value): value is string => value !== undefined);
  // owner and name only: the host a gateway fetches from may be another name (an internal one) than Forgejo's own
  return named.length === 0 || named.includes(served) ? undefined : named[0];
}

/** `owner/name` (lower case, no `.git`) of a remote repository's URL (`https://…`, `ssh://…`, `git@host:owner/name.git`); undefined for a local path. */
function ownerAndName(location: string): string | undefined {
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)$/i.exec(location)?.[1] ?? /^[^/:@\s]+@[^/:\s]+:(.+)$/.exec(location)?.[1];
  if (path === undefined) return undefined;
  const parts = path.split(/[?#]/)[0]!.replace(/\/+$/, '').replace(/\.git$/i, '').split('/').filter((part) => part !== '');
  return parts.length >= 2 ? parts.slice(-2).join('/').toLowerCase() : undefined;
}

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const CONTENT_TYPE_FIX = "in the webhook's settings, choose POST Content Type application/json";

// why a signed body is not a webhook's payload: not JSON, not an object, or a ref or commit that is not a string
function payloadProblem(body: Buffer): { code: 'MALFORMED_JSON' | 'INVALID_REQUEST'; error: string } | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch (error) {
    return { code: 'MALFORMED_JSON', error: `the webhook's body is not JSON (${(error as Error).message.slice(0, 200)}): ${CONTENT_TYPE_FIX}` };
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { code: 'INVALID_REQUEST', error: `the webhook's body must be a JSON object (Forgejo's event payload), got ${Array.isArray(payload) ? 'an array' : payload === null ? 'null' : `a ${typeof payload}`}: ${CONTENT_TYPE_FIX}` };
  for (const field of ['ref', 'after'] as const) {
    const value = (payload as Record<string, unknown>)[field];
    if (value !== undefined && typeof value !== 'string') return { code: 'INVALID_REQUEST', error: `the webhook's '${field}' must be a string (a push names its branch and commit), got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}` };
  }
  return undefined;
}

// the branch and commit a push names (signed, so read; still only a hint the scanner checks against the branch's head)
function pushOf(body: Buffer): PushHint | undefined {
  try {
    const { ref, after } = JSON.parse(body.toString('utf8')) as { ref?: unknown; after?: unknown };
    return typeof ref === 'string' && typeof after === 'string' ? { ref, after } : undefined;
  } catch {
    return undefined;
  }
}

function signatureOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return header.startsWith('sha256=') ? header.slice('sha256='.length) : header;
}
