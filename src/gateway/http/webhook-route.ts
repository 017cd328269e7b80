import { createHmac } from 'node:crypto';
import express, { type Router } from 'express';
import { secretsEqual } from '../../http-edge/index.js';
import type { PushHint } from '../../scanner/index.js';
import type { RescanScheduler } from './rescan-scheduler.js';

/**
 * `POST /v1/hooks/forgejo`: verifies the HMAC-SHA256 of the raw body, answers 202 at once, rescans in the background,
 * and `announce`s the push so that the other instances sharing the store rescan too.
 */
export function webhookRouter(options: { secret: string | undefined; maxBodyBytes: number; scheduler: RescanScheduler; announce?: (reason: string) => void }): Router {
  const router = express.Router();
  router.post('/v1/hooks/forgejo', express.raw({ type: () => true, limit: options.maxBodyBytes }), (request, response) => {
    if (!options.secret) {
      response.status(404).json({ code: 'WEBHOOKS_OFF', error: 'webhooks are off: set webhook_secret in the config (or HLDP_WEBHOOK_SECRET) and the same secret in Forgejo' });
      return;
    }
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const given = signatureOf(request.get('x-forgejo-signature') ?? request.get('x-gitea-signature') ?? request.get('x-hub-signature-256'));
    // the signature covers the raw bytes as sent, never re-serialised JSON
    const expected = createHmac('sha256', options.secret).update(body).digest('hex');
    if (!given || !secretsEqual(given.toLowerCase(), expected)) {
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
    const event = request.get('x-forgejo-event') ?? request.get('x-gitea-event') ?? 'push';
    // the delivery id is outside the signature: kept only as an id looks (Forgejo sends a UUID), since it goes into the
    // announcement the other instances get (PostgreSQL's NOTIFY refuses a payload past ~8,000 bytes) and the logs
    const claimed = request.get('x-forgejo-delivery') ?? request.get('x-gitea-delivery');
    const delivery = claimed !== undefined && DELIVERY_ID.test(claimed) ? claimed : null;
    // a push to any branch may be ours; a rescan with nothing new costs one ref listing
    const rescan = event === 'push' ? 'scheduled' : 'ignored';
    if (rescan === 'scheduled') {
      const reason = `webhook ${delivery ?? ''}`.trim();
      options.scheduler.request(reason, pushOf(body));
      options.announce?.(reason);
    }
    response.status(202).json({ accepted: true, event, delivery, rescan });
  });
  return router;
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
