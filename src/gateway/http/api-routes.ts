import express, { type Router } from 'express';
import { missingToolSuggestion } from '../../matcher/index.js';
import type { ReceiptQuery } from '../../store/index.js';
import type { Gateway } from '../service/index.js';
import { validateBody } from './body-validator.js';
import { sendOutcome } from './send-outcome.js';
import { callInSession, SESSION_HEADER } from './session-routes.js';

/** The `/v1` API over a gateway (authentication is the caller's to add). */
export function apiRouter(gateway: Gateway, options: { maxBodyBytes: number; rescansIdle: () => Promise<void> }): Router {
  const router = express.Router();
  const jsonBody = express.json({ limit: options.maxBodyBytes, strict: false });

  router.get('/v1/tools', (_request, response) => {
    const { index } = gateway.registry;
    response.json({ commit: index.commit, ...(index.stale ? { stale: index.stale } : {}), tools: index.tools, errors: index.errors, warnings: index.warnings });
  });

  router.get('/v1/tools/:name', (request, response) => {
    const lookup = gateway.registry.matcher.lookup(request.params.name, undefined);
    if (!lookup.found) {
      response.status(404).json({ found: false, code: 'TOOL_NOT_FOUND', error: lookup.errorMessage, near: lookup.near, suggestion: missingToolSuggestion(request.params.name) });
      return;
    }
    response.json(lookup.tool);
  });

  router.post('/v1/match', jsonBody, validateBody('MatchRequest'), (request, response) => {
    const { intent, limit } = request.body as { intent: string; limit?: number };
    response.json(gateway.match(intent, limit === undefined ? {} : { limit }));
  });

  router.post('/v1/call', jsonBody, validateBody('CallRequest'), async (request, response) => {
    // with X-HLDP-Session the call is made in that session, and the meta-tools answer by name
    if (request.get(SESSION_HEADER) !== undefined) return callInSession(gateway, request, response);
    const body = request.body as { tool?: string; params?: Record<string, unknown>; intent?: string; limit?: number; timeout_ms?: number };
    if (body.intent !== undefined) {
      // an intent only matches: the spec's §1 second form never runs anything
      response.json(gateway.match(body.intent, body.limit === undefined ? {} : { limit: body.limit }));
      return;
    }
    sendOutcome(response, await gateway.call(body.tool!, body.params ?? {}, deadlineOption(body.timeout_ms)));
  });

  router.post('/v1/confirm', jsonBody, validateBody('ConfirmRequest'), async (request, response) => {
    const body = request.body as { token: string; timeout_ms?: number };
    sendOutcome(response, await gateway.confirm(body.token, deadlineOption(body.timeout_ms)));
  });

  router.post('/v1/scan', async (_request, response) => {
    try {
      // a background rescan may have started before the newest push: let it end, then look again
      await options.rescansIdle();
      const result = await gateway.rescan();
      const { index } = result;
      response.json({ previous: result.previous, commit: result.commit, changed: result.changed, tools: index.tools.length, errors: index.errors, warnings: index.warnings, ...(index.stale ? { stale: index.stale } : {}) });
    } catch (error) {
      response.status(502).json({ code: 'SCAN_FAILED', error: `${(error as Error).message}; still serving ${gateway.registry.index.commit}` });
    }
  });

  router.get('/v1/receipts', async (request, response) => {
    const query = receiptQuery(request.query as Record<string, unknown>);
    if (typeof query === 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: query });
      return;
    }
    const limit = query.limit!;
    const offset = query.offset ?? 0;
    // one more than asked says whether another page follows, without a count over the table
    const page = await gateway.receipts({ ...query, limit: limit + 1 });
    const receipts = page.slice(0, limit);
    response.json({ receipts, limit, offset, next_offset: page.length > limit ? offset + limit : null });
  });

  router.get('/v1/receipts/:id', async (request, response) => {
    const receipt = await gateway.store.receipts.get(request.params.id);
    if (!receipt) response.status(404).json({ code: 'RECEIPT_NOT_FOUND', error: `no receipt '${request.params.id}'` });
    else response.json(receipt);
  });
  return router;
}

/** A request's `timeout_ms` as the gateway's call option. */
export function deadlineOption(timeoutMs: number | undefined): { timeoutMs?: number } {
  return timeoutMs === undefined ? {} : { timeoutMs };
}

/** Query string → receipt query, or a message saying what is wrong. */
function receiptQuery(query: Record<string, unknown>): ReceiptQuery | string {
  const allowed = new Set(['ok', 'tool', 'since', 'limit', 'offset']);
  const unknown = Object.keys(query).filter((key) => !allowed.has(key));
  if (unknown.length) return `unknown query parameter ${unknown.map((key) => `'${key}'`).join(', ')}; use ok, tool, since, limit, offset`;
  for (const [key, value] of Object.entries(query)) if (typeof value !== 'string') return `query parameter '${key}' must be given once`;
  const { ok, tool, since, limit = '50', offset = '0' } = query as Record<string, string | undefined>;
  if (ok !== undefined && ok !== 'true' && ok !== 'false') return "'ok' must be true or false";
  if (since !== undefined && Number.isNaN(Date.parse(since))) return "'since' must be an ISO date or time, e.g. 2026-11-29T10:00:00Z";
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) return "'limit' must be an integer from 1 to 1000";
  if (!/^\d+$/.test(offset)) return "'offset' must be a non-negative integer";
  return {
    limit: Number(limit),
    offset: Number(offset),
    ...(ok !== undefined ? { status: ok === 'true' ? ('ok' as const) : ('failed' as const) } : {}),
    ...(tool !== undefined ? { tool } : {}),
    ...(since !== undefined ? { since } : {}),
  };
}
