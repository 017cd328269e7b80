import express, { type RequestHandler, type Router } from 'express';
import { exceedsDepth, MAX_JSON_DEPTH, receiptPiecesSeen, scanProblemsFor, type TextPieces, toolCount } from '../../core/index.js';
import { overseesAll } from '../../events/index.js';
import { holdForReader, LONG_TEXT_UNITS, receiptReadsOf, type ReceiptReads, sendJsonText } from '../../http-edge/index.js';
import { META_TOOL_BY_NAME, metaToolWithoutSession, unknownToolFor, type Gateway } from '../service/index.js';
import { emptyBody, principalOf, receiptQuery, toolListQuery, validateBody } from '../../request-checks/index.js';
import { matchOptions, matchWait } from './match-options.js';
import { outcomeStatus, sendOutcome } from './send-outcome.js';
import { hangUpSignal } from './hang-up.js';
import { SCANS_PER_MINUTE, ScanRate } from './scan-rate.js';
import { callInSession, matchInSession, SESSION_HEADER } from './session-routes.js';
import { onDemandMark, toolPage } from './tool-list.js';
import { WIRE_ERRORS } from '../../openapi/index.js';
import { keptName } from '../../matcher/index.js';
import { readsPlaces } from '../../policy/index.js';

/** How many bytes of stored receipts one page of `GET /v1/receipts` holds at most (beyond its first receipt). */
export const RECEIPT_PAGE_BYTES = 4 * 1024 * 1024;

/** The `/v1` API over a gateway (authentication is the caller's to add). */
export function apiRouter(gateway: Gateway, options: { maxBodyBytes: number; rescansIdle: () => Promise<void>; announce?: (reason: string) => void; receiptReads?: ReceiptReads; uncommitted?: (signal?: AbortSignal) => Promise<string[]> }): Router {
  const router = express.Router();
  const receiptReads = options.receiptReads ?? receiptReadsOf(gateway);
  // parsed, then measured: anything past the depth limit is refused before a handler clones or validates it
  const jsonBody: RequestHandler[] = [express.json({ limit: options.maxBodyBytes, strict: false }), refuseDeepBodies];

  router.get('/v1/tools', (request, response) => {
    const query = toolListQuery(request.query as Record<string, unknown>);
    if (typeof query === 'string') {
      response.status(400).json({ code: 'INVALID_REQUEST', error: query });
      return;
    }
    const { index } = gateway.registry;
    const page = toolPage(index, query, onDemandMark(gateway));
    response.json({
      commit: index.commit, ...(index.stale ? { stale: index.stale } : {}),
      total: page.total, limit: query.limit, offset: query.offset, next_offset: page.next_offset,
      // a broken file's path and errors only to an admin, as a match or a call of it tells them (review Z2-3)
      tools: page.tools, ...scanProblemsFor(index, principalOf(response).roles),
    });
  });

  router.get('/v1/tools/:name', (request, response) => {
    const registry = gateway.registry;
    const lookup = registry.matcher.lookup(request.params.name, undefined);
    if (!lookup.found) {
      // a broken definition's file and errors only to whom a call of it would tell them (review Z11, Z11-1)
      const { kind, ...body } = unknownToolFor(gateway.sessions, registry, request.params.name, lookup.errorMessage, lookup.near, principalOf(response).name);
      response.status(outcomeStatus(kind)).json(body);
      return;
    }
    response.json(onDemandMark(gateway)(lookup.tool));
  });

  router.post('/v1/match', ...jsonBody, validateBody('MatchRequest'), async (request, response) => {
    // with X-HLDP-Session the match is the session's: ranked by its recent calls, recorded for hldp suggest examples
    if (request.get(SESSION_HEADER) !== undefined) return matchInSession(gateway, request, response);
    const { intent, limit, context } = request.body as { intent: string; limit?: number; context?: Record<string, unknown> };
    response.json(await gateway.match(intent, { ...matchOptions(limit, context), ...matchWait(request), caller: principalOf(response).name }));
  });

  router.post('/v1/call', ...jsonBody, validateBody('CallRequest'), async (request, response) => {
    // with X-HLDP-Session the call is made in that session, and the meta-tools answer by name
    if (request.get(SESSION_HEADER) !== undefined) return callInSession(gateway, request, response);
    const body = request.body as { tool?: string; params?: Record<string, unknown>; intent?: string; limit?: number; timeout_ms?: number; context?: Record<string, unknown> };
    if (body.intent !== undefined) {
      // an intent only matches: the spec's §1 second form never runs anything
      response.json(await gateway.match(body.intent, { ...matchOptions(body.limit, body.context), ...matchWait(request), caller: principalOf(response).name }));
      return;
    }
    const meta = META_TOOL_BY_NAME.get(body.tool!);
    if (meta) {
      response.status(WIRE_ERRORS.SESSION_REQUIRED.status).json({ code: 'SESSION_REQUIRED', error: metaToolWithoutSession(meta) });
      return;
    }
    sendOutcome(response, await gateway.call(body.tool!, body.params ?? {}, { ...deadlineOption(body.timeout_ms), caller: principalOf(response).name, signal: hangUpSignal(response) }));
  });

  router.post('/v1/confirm', ...jsonBody, validateBody('ConfirmRequest'), async (request, response) => {
    const body = request.body as { token: string; timeout_ms?: number };
    sendOutcome(response, await gateway.confirm(body.token, { ...deadlineOption(body.timeout_ms), caller: principalOf(response).name, signal: hangUpSignal(response) }));
  });

  const scans = new ScanRate();
  router.post('/v1/scan', ...jsonBody, emptyBody('POST /v1/scan'), async (_request, response) => {
    const principal = principalOf(response).name;
    try {
      // a background rescan may have started before the newest push: let it end, then look again
      await options.rescansIdle();
      // a request that joins the rescan waiting to start costs nothing; one that starts a rescan which finds nothing new
      // takes a turn of its principal's, admins' too: a loop of them kept a 10,000-tool folder rescanning back to back
      // (review Z8, Z8-9), and `local`, every client of a gateway without credentials, is an admin (review Z9, Z9-9)
      const joined = gateway.rescanQueued;
      const wait = joined ? 0 : scans.wait(principal);
      if (wait > 0) {
        response.status(429).set('Retry-After', String(wait)).json({ code: 'TOO_MANY_SCANS', error: `principal '${principal}' asked ${SCANS_PER_MINUTE} rescans that found nothing new in the last minute, the most one may; ask again in ${wait} s (a rescan that finds a new commit takes no turn; a push is found meanwhile by the webhook or the poll)` });
        return;
      }
      const result = await gateway.rescan();
      if (!joined && !result.changed) scans.charge(principal);
      // the other instances sharing the store rescan too, as for a webhook: else they served the old commit (and its
      // policies) until their next poll, while this answer said the new one is served (review L, L2)
      options.announce?.('POST /v1/scan');
      const { index } = result;
      // a checkout's definitions edited since HEAD are not what was scanned: said, else the answer was `changed: false` alone
      const edited = (await options.uncommitted?.(hangUpSignal(response))) ?? [];
      const found = { previous: result.previous, commit: result.commit, changed: result.changed, tools: toolCount(index), ...scanProblemsFor(index, principalOf(response).roles), ...(edited.length > 0 ? { uncommitted: edited } : {}) };
      // the repository could not be read and the last good index is served: not a success (a CI step that pushes, then
      // rescans and fails on non-2xx, passed while its push was never read: review N, N22)
      if (index.stale) response.status(502).json({ code: 'SCAN_FAILED', error: `${index.stale.reason}; still serving ${index.commit}`, ...found, stale: index.stale });
      else response.json(found);
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
    // a tool named by an alias, or in another letter case, is the tool a call of that name runs: its receipts are kept
    // under its name, and ?tool=天气 found none of weather-cn's (review userZ10, U10-20); a name no tool answers to now
    // (a removed tool's) is looked for as it is
    if (query.tool !== undefined) query.tool = keptName(gateway.registry.matcher, query.tool);
    // everyone sees the receipts of its own calls; admins and approvers see every caller's
    const principal = principalOf(response);
    // bounded in bytes as well as rows: a page of large receipts ends early (next_offset continues), so one request
    // never reads, parses and sends more than about RECEIPT_PAGE_BYTES whatever the receipts hold
    const page = await gateway.store.receipts.pageTexts({ ...query, ...(overseesAll(principal) ? {} : { caller: principal.name }) }, RECEIPT_PAGE_BYTES);
    // the stored (canonical JSON) texts as they are, in slices when long: parsed and made JSON again, a page of 4 MiB
    // held the event loop for tens of ms each time
    const rest = { limit, offset, next_offset: page.more ? offset + page.texts.length : null, max_bytes: RECEIPT_PAGE_BYTES, ...(page.endedEarly ? { ended_early: true } : {}) };
    // the joined page is held until its client has read it, as a long receipt by id is, and counted with them: a page
    // always holds its first receipt whatever its size, so `?limit=1` was the way around that bound (review X, X3)
    const characters = page.texts.reduce((sum, text) => sum + text.length, 0);
    if (!holdForReader(receiptReads, response, principal.name, characters, 'GET /v1/receipts', LONG_TEXT_UNITS)) return;
    // each source as the principal may read it: its host, URL and repository path are an admin's (review Z7, Z7-1)
    const whole = readsPlaces(principal);
    // sent in pieces, the stored texts' own slices among them: joined, a page of one 96 MB receipt was copied whole
    const pieces: TextPieces = ['{"receipts":['];
    for (const [at, text] of page.texts.entries()) pieces.push(...(at === 0 ? [] : [',']), ...receiptPiecesSeen(text, whole));
    pieces.push(`],${JSON.stringify(rest).slice(1)}`);
    sendJsonText(response, 200, pieces);
  });

  router.get('/v1/receipts/verify', async (_request, response) => {
    // a walk reads every receipt of every caller: an audit, not an agent's to start at will
    if (!overseesAll(principalOf(response))) {
      response.status(403).json({ code: 'ROLE_REQUIRED', error: 'only an admin or approver may walk the receipt chain (GET /v1/receipts/verify); ask one, or run hldp receipts verify where the store is' });
      return;
    }
    response.json(await gateway.verifyReceipts());
  });

  router.get('/v1/receipts/:id', async (request, response) => {
    const principal = principalOf(response);
    // another principal's receipt is not there for this one: the same 404, so an id says nothing either way
    const text = await gateway.store.receipts.getText(request.params.id, overseesAll(principal) ? {} : { caller: principal.name });
    if (text === undefined) return void response.status(404).json({ code: 'RECEIPT_NOT_FOUND', error: `no receipt '${request.params.id}'` });
    // held whole until a client that may read as slowly as it likes has it: bounded per principal and in all
    if (!holdForReader(receiptReads, response, principal.name, text.length, 'GET /v1/receipts/:id', LONG_TEXT_UNITS)) return;
    // the stored text as it is, in slices when long: parsed and sent whole, 96 MB held every other request for seconds;
    // only its source is read (not parsed) and, to one who is no admin, sent without host, URL or path (review Z7, Z7-1)
    sendJsonText(response, 200, receiptPiecesSeen(text, readsPlaces(principal)));
  });
  return router;
}

/** A request's `timeout_ms` as the gateway's call option. */
export function deadlineOption(timeoutMs: number | undefined): { timeoutMs?: number } {
  return timeoutMs === undefined ? {} : { timeoutMs };
}

const refuseDeepBodies: RequestHandler = (request, response, next) => {
  if (exceedsDepth(request.body, MAX_JSON_DEPTH)) {
    response.status(400).json({ code: 'NESTING_TOO_DEEP', error: `the body is nested more than ${MAX_JSON_DEPTH} levels deep; send at most ${MAX_JSON_DEPTH} levels (flatten the params)` });
    return;
  }
  next();
};
