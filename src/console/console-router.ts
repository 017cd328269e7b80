import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { findTool, receiptSeen, scanProblemsFor, type Receipt } from '../core/index.js';
import { EVENT_TYPES, isEventType, streamEvents, type EventType } from '../events/index.js';
import type { ConsoleBackend, ConsolePrincipal, ConsoleRawField, ConsoleReceiptPage, ConsoleReceiptQuery } from './console-backend.js';
import { html, revealHiddenCharacters, type Html } from './html.js';
import { ConsoleSessions, fromSameOrigin, keepsSecureCookie, LEGACY_COOKIE, type ConsoleSession } from './security.js';
import { SignInCookies } from './sign-in-cookie.js';
import { APPROVALS_PAGE, approvalsView, approvalView, decidedApprovalView } from './views/approvals.js';
import { failureFilters, failuresView, LIST_BYTES, PAGE, receiptQuery, receiptRows, SEARCH_BYTES, SEARCH_ROWS, type FailureFilters } from './views/failures.js';
import { page, type Viewer } from './views/layout.js';
import { DISPLAY_CHARACTERS, receiptView } from './views/receipt.js';
import { registryOffset, registryView } from './views/registry.js';
import { rejectedView, rejectionFilters, rejectionQuery } from './views/rejected.js';
import { sessionsView } from './views/sessions.js';
import { signInPage } from './views/sign-in.js';
import { forwardedReason, forwardingHeader, holdForReader, LONG_TEXT_UNITS, notTheOperator, ReceiptReads } from '../http-edge/index.js';

const require = createRequire(import.meta.url);

/** The files the pages load: htmx from its npm package, the console's own script and style from the package's assets. */
function assetFiles(): Record<string, { path: string; type: string }> {
  const own = (name: string) => fileURLToPath(new URL(`../../assets/console/${name}`, import.meta.url));
  return {
    'htmx.min.js': { path: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
    'console.js': { path: own('console.js'), type: 'text/javascript; charset=utf-8' },
    'console.css': { path: own('console.css'), type: 'text/css; charset=utf-8' },
  };
}

interface Signed {
  session: ConsoleSession;
  principal: ConsolePrincipal;
  viewer: Viewer;
}

/** Options of the console. */
export interface ConsoleOptions {
  /** set the cookie's Secure flag (the gateway is reached over https, e.g. behind a proxy) */
  secureCookies?: boolean;
  /** Secure only through the public URL: the operator's own loopback browser gets the plain-http cookie (`SignInCookies`) */
  plainOnLoopback?: boolean;
  /** `listen.public_url`: its origin is this console's too (a TLS proxy in front) */
  publicUrl?: string;
}

/**
 * The console for people, at `/` and `/console/*`: server-rendered HTML (escaped by `html`), htmx and a small script
 * served by the gateway, sign-in with a token exchanged for an HttpOnly SameSite=Strict cookie, and every
 * state-changing request checked for its origin and CSRF token.
 */
export function consoleRouter(backend: ConsoleBackend, options: ConsoleOptions = {}): Router {
  const router = express.Router();
  const sessions = new ConsoleSessions(backend.sessionKey);
  const receiptReads = backend.receiptReads ?? new ReceiptReads();
  const assets = assetFiles();
  const cache = new Map<string, Buffer>();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const cookies = new SignInCookies(options.secureCookies === true, options.plainOnLoopback === true);
  const cookieOptions = { httpOnly: true, sameSite: 'strict' } as const;
  // a sign-in made before the cookie had its own path would outlive a sign-out of the new one: it goes too
  const clearLegacy = (response: Response, secure: boolean): void => {
    response.clearCookie(LEGACY_COOKIE.name, { ...cookieOptions, secure, path: LEGACY_COOKIE.path });
  };

  const send = (response: Response, markup: Html, status = 200): void => {
    response.status(status).type('html').setHeader('cache-control', 'no-store').send(revealHiddenCharacters(markup.text));
  };
  // a cookie signed out at any instance is refused: the store says so (a store that does not answer is a refusal, below)
  const signedIn = async (request: Request): Promise<Signed | undefined> => {
    const session = sessions.read(cookies.value(request), (name) => backend.sessionBinding(name), backend.now());
    const principal = session && backend.principal(session.principal);
    if (!session || !principal || (await backend.signedOut(session.nonce))) return undefined;
    return { session, principal, viewer: { name: principal.name, csrf: session.csrf } };
  };
  const requireSignIn = async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    let signed: Signed | undefined;
    try {
      signed = await signedIn(request);
    } catch (error) {
      response.status(503).json({ code: 'STORE_UNAVAILABLE', error: `cannot tell whether this sign-in was signed out, so it is refused: the store does not answer (${(error as Error).message}); try again when GET /healthz says ok` });
      return;
    }
    if (signed) {
      response.locals.signed = signed;
      next();
    } else if (request.method === 'GET' && !request.originalUrl.startsWith('/console/events') && !request.get('hx-request')) {
      response.redirect(303, `/console/sign-in?next=${encodeURIComponent(request.originalUrl)}`);
    } else {
      response.status(401).json({ code: 'UNAUTHORIZED', error: 'sign in to the console first (POST /console/sign-in with a token)' });
    }
  };
  // every state-changing request: from this console's own pages (Origin), and carrying this sign-in's CSRF token
  const requireCsrf = (request: Request, response: Response, next: NextFunction): void => {
    const signed = response.locals.signed as Signed;
    const origin = fromSameOrigin(request, options.publicUrl);
    const token = request.get('x-csrf-token') ?? (request.body as Record<string, unknown> | undefined)?._csrf;
    if (!origin.ok) response.status(403).json({ code: 'CSRF_REFUSED', error: `refused: ${origin.reason}; use the console's own page` });
    else if (!sessions.csrfMatches(signed.session, token)) response.status(403).json({ code: 'CSRF_REFUSED', error: "refused: this request does not carry the console's CSRF token; reload the page and try again" });
    else next();
  };
  const signed = (response: Response): Signed => response.locals.signed as Signed;
  // a notice the console itself put in the link for this session (its tag), never text a link brought
  const givenNotice = (request: Request, response: Response): string | undefined => {
    const given = typeof request.query.notice === 'string' ? request.query.notice.slice(0, 300) : undefined;
    return given !== undefined && sessions.noticeMatches(signed(response).session, given, request.query.tag) ? given : undefined;
  };

  router.get('/', (_request, response) => response.redirect(303, '/console/failures'));
  router.get('/console', (_request, response) => response.redirect(303, '/console/failures'));

  router.get('/console/assets/:file', (request, response) => {
    const asset = Object.hasOwn(assets, request.params.file!) ? assets[request.params.file!] : undefined;
    if (!asset) {
      response.status(404).type('text').send('no such asset');
      return;
    }
    let body = cache.get(asset.path);
    if (!body) cache.set(asset.path, (body = readFileSync(asset.path)));
    response.type(asset.type).setHeader('cache-control', 'no-cache').send(body);
  });

  router.get('/console/sign-in', async (request, response) => {
    // a store that does not answer leaves the person on the sign-in page (fail closed)
    if (await signedIn(request).catch(() => undefined)) return response.redirect(303, '/console/failures');
    send(response, signInPage({ credentialsRequired: backend.credentialsRequired, next: safeNext(request.query.next) }));
  });

  router.post('/console/sign-in', form, (request, response) => {
    const origin = fromSameOrigin(request, options.publicUrl);
    if (!origin.ok) {
      response.status(403).json({ code: 'CSRF_REFUSED', error: `refused: ${origin.reason}` });
      return;
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    // the browser would drop a Secure cookie from a plain-http page and send every page back here: say so, sign no one in
    const { cookie, secure } = cookies.issued(request);
    const keeps = secure ? keepsSecureCookie(request) : { ok: true as const };
    if (!keeps.ok) {
      send(response, signInPage({ credentialsRequired: backend.credentialsRequired, error: insecureOriginMessage(keeps.origin), next }), 400);
      return;
    }
    const token = typeof body.token === 'string' ? body.token.trim() : '';
    // without credentials the sign-in button makes its browser the operator: only the operator's own (review P, P13)
    const forwarded = forwardingHeader(request);
    const stranger = backend.credentialsRequired ? undefined : forwarded === undefined ? notTheOperator(request.socket) : forwardedReason(forwarded);
    if (stranger !== undefined) {
      send(response, signInPage({ credentialsRequired: false, error: `Not signed in: ${stranger}.`, next }), 401);
      return;
    }
    const principal = backend.credentialsRequired ? (token ? backend.authenticate(token) : undefined) : backend.principal('local');
    if (!principal) {
      send(response, signInPage({ credentialsRequired: true, error: 'That token stands for no one here.', next }), 401);
      return;
    }
    const { value, session } = sessions.issue(principal.name, backend.sessionBinding(principal.name) ?? '', backend.now());
    response.cookie(cookie.name, value, { ...cookieOptions, secure, path: cookie.path, expires: new Date(session.expires) });
    clearLegacy(response, secure);
    response.redirect(303, next);
  });

  router.use('/console', requireSignIn);

  router.post('/console/sign-out', form, requireCsrf, async (request, response) => {
    const { session } = signed(response);
    try {
      await backend.signOut(session.nonce, session.expires);
    } catch (error) {
      // the cookie stays, so that the person can sign out again once the store answers
      response.status(503).json({ code: 'STORE_UNAVAILABLE', error: `not signed out: the store did not record it (${(error as Error).message}), and other instances would still take this sign-in; try again when GET /healthz says ok` });
      return;
    }
    for (const { cookie, secure } of cookies.cleared(request)) response.clearCookie(cookie.name, { ...cookieOptions, secure, path: cookie.path });
    clearLegacy(response, options.secureCookies === true);
    response.redirect(303, '/console/sign-in');
  });

  router.get('/console/events', async (request, response) => {
    const { principal } = signed(response);
    const types = typeof request.query.types === 'string' ? request.query.types.split(',').filter(isEventType) : [...EVENT_TYPES];
    const wanted = new Set<EventType>(types);
    // one count per principal with GET /v1/events: a second door must not lift the bound on an agent's streams
    const place = backend.events.streams.take({ name: principal.name, roles: new Set(principal.roles) });
    if (!place.ok) {
      response.status(429).json({ code: 'TOO_MANY_STREAMS', error: place.message });
      return;
    }
    try {
      await streamEvents(backend.events, request, response, { accepts: (event) => wanted.has(event.type) && backend.maysee(principal, event), ...(wanted.size < EVENT_TYPES.length ? { types } : {}) });
    } finally {
      place.release();
    }
  });

  // a plain page reads up to LIST_BYTES of stored calls (the sizes first, then only the rows that fit), as GET
  // /v1/receipts does: a page of large calls ends early. A text search reads up to SEARCH_BYTES: one at a time per
  // principal, so no one principal (an agent may sign in) runs many at once; a second is told to wait for the first
  const searching = new Set<string>();
  const receiptsFor = async (principal: ConsolePrincipal, filters: FailureFilters): Promise<ConsoleReceiptPage | undefined> => {
    if (filters.q === '' && filters.code === '') return backend.receiptPage(ownCalls(principal, receiptQuery(filters)), LIST_BYTES);
    if (searching.has(principal.name)) return undefined;
    searching.add(principal.name);
    try {
      const found = await backend.search({ ...ownCalls(principal, receiptQuery(filters)), searchRows: SEARCH_ROWS, searchBytes: SEARCH_BYTES });
      return { receipts: found.slice(0, PAGE), more: found.length > PAGE, endedEarly: false };
    } finally {
      searching.delete(principal.name);
    }
  };
  const SEARCH_BUSY = 'Another search of yours is still running: one search at a time per principal. Wait for it to finish, then search again.';

  router.get('/console/failures', async (request, response) => {
    const { principal, viewer } = signed(response);
    const filters = failureFilters(request.query as Record<string, unknown>);
    const calls = await receiptsFor(principal, filters);
    if (!calls) {
      send(response, page('Calls', html`<h1>Calls</h1><p class="notice" role="status" data-code="SEARCH_BUSY">${SEARCH_BUSY}</p>`, viewer, '/console/failures'), 429);
      return;
    }
    send(response, page('Calls', failuresView(calls, filters, principal.seesAll), viewer, '/console/failures'));
  });

  router.get('/console/failures/rows', async (request, response) => {
    const filters = failureFilters(request.query as Record<string, unknown>);
    const calls = await receiptsFor(signed(response).principal, filters);
    if (!calls) {
      send(response, html`<tr class="empty" data-code="SEARCH_BUSY"><td colspan="7">${SEARCH_BUSY}</td></tr>`, 429);
      return;
    }
    send(response, receiptRows(calls, filters));
  });

  router.get('/console/receipts/:id', async (request, response) => {
    const { viewer, principal } = signed(response);
    // another principal's receipt is not found, rather than forbidden: its id tells nothing. Its strings are cut for
    // display by the store (off the event loop for a large one), each cut said, with a link to its whole raw bytes
    const excerpt = await backend.receipt(String(request.params.id), DISPLAY_CHARACTERS, principal.seesAll ? undefined : principal.name);
    if (!excerpt) {
      send(response, page('Not found', htmlNotFound(`No receipt '${request.params.id}'.`), viewer), 404);
      return;
    }
    // its source as the viewer may read it: the host, URL and repository path of the gateway that made it are an
    // admin's, as the request's filer is (policy's readsPlaces; review Z7, Z7-1)
    const receipt = receiptSeen(excerpt.receipt, principal.roles.includes('admin'));
    const { index } = backend.registry();
    // one tool by name: reading index.tools would make and keep every definition of a lazily read index
    const definition = findTool(index, receipt.tool);
    // the rule's reason and the deadline the call asked for are kept with the request, read as the viewer may read it
    const link = (receipt as { approval?: { id?: unknown } | null }).approval;
    const approval = typeof link?.id === 'string' ? await backend.approvals.record(link.id, principal) : undefined;
    send(response, page(`${receipt.ok ? '✓' : '✗'} ${receipt.tool}`, receiptView({ ...excerpt, receipt }, definition, index.commit, approval), viewer, '/console/failures'));
  });

  // a receipt's output, error or stderr whole, as it was stored: where its view shows only the start
  router.get('/console/receipts/:id/raw/:field', async (request, response) => {
    const { viewer, principal } = signed(response);
    const field = String(request.params.field);
    const bytes = isRawField(field) ? await backend.receiptRaw(String(request.params.id), field, principal.seesAll ? undefined : principal.name) : undefined;
    if (!bytes) {
      send(response, page('Not found', htmlNotFound(`No ${isRawField(field) ? field : 'such field'} of a receipt '${request.params.id}'.`), viewer), 404);
      return;
    }
    // held until its reader has it, in the gateway's one count of long receipt texts: a signed-in agent held 40 × 16 MB
    // through this route beside the API's bound of 4 (review Z8, Z8-8)
    if (!holdForReader(receiptReads, response, principal.name, bytes.byteLength, 'GET /console/receipts/:id/raw/:field', LONG_TEXT_UNITS, true)) return;
    // the tool's bytes as text, never as a page: nosniff and the console's CSP are set for every answer
    response.status(200).type('text/plain; charset=utf-8').setHeader('cache-control', 'no-store').setHeader('content-disposition', 'inline').end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  });

  router.get('/console/approvals', async (request, response) => {
    const { viewer, principal } = signed(response);
    const offset = Number(request.query.offset);
    const paging = { offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0, limit: APPROVALS_PAGE + 1 };
    // a page at a time, one more than shown to know whether older requests wait: the queue may be long, each request's params up to a body's size
    const [pending, resolved] = await Promise.all([backend.approvals.pending(principal, paging), backend.events.recent(['approval.resolved'], 20)]);
    const notice = givenNotice(request, response);
    const shown = pending.slice(0, APPROVALS_PAGE);
    send(response, page('Approvals', approvalsView(shown, resolved.filter((event) => backend.maysee(principal, event)), viewer, notice, { offset: paging.offset, more: pending.length > APPROVALS_PAGE }), viewer, '/console/approvals'));
  });

  router.get('/console/approvals/:id', async (request, response) => {
    const { viewer, principal } = signed(response);
    const approval = await backend.approvals.request(String(request.params.id), principal);
    if (!approval) {
      // a decided one is shown, not decided again: a receipt's page links the request its call went through
      const decided = await backend.approvals.record(String(request.params.id), principal);
      if (decided && decided.status !== 'pending') {
        send(response, page(`Approval ${decided.tool}`, decidedApprovalView(decided), viewer, '/console/approvals'));
        return;
      }
      send(response, page('Not found', htmlNotFound(`No approval request '${request.params.id}' that you may see.`), viewer), 404);
      return;
    }
    send(response, page(`Approval ${approval.tool}`, approvalView(approval, viewer, givenNotice(request, response)), viewer, '/console/approvals'));
  });

  router.post('/console/approvals/:id/decide', form, requireCsrf, async (request, response) => {
    // who may decide is the request's own rule, judged by the backend as the API judges it (a rule may name a principal without the approver role)
    const { principal } = signed(response);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const reason = typeof body.reason === 'string' ? body.reason.trim().slice(0, 500) : '';
    const decision = body.decision === 'approve' ? 'approve' : body.decision === 'deny' ? 'deny' : undefined;
    if (!decision) {
      response.status(400).json({ code: 'INVALID_REQUEST', error: "send decision=approve or decision=deny" });
      return;
    }
    const outcome = await backend.approvals[decision](String(request.params.id), principal, reason);
    // one the request's rule does not let decide (or see) is refused as the API refuses it, in words on the page a
    // person was on: a request they may not see reads exactly as one that does not exist
    const withNotice = (message: string, where = '/console/approvals'): string => {
      const notice = message.slice(0, 300);
      return `${where}?notice=${encodeURIComponent(notice)}&tag=${sessions.noticeTag(signed(response).session, notice)}`;
    };
    if (!outcome.ok) {
      // a request left pending (this instance runs calls elsewhere than the one that filed it) is shown again, saying
      // why in full and where to decide it, rather than the queue with the first 300 characters of that
      const id = String(request.params.id);
      response.redirect(303, outcome.pending ? withNotice('Nothing ran, and nothing was decided: the request still waits, for the reason below.', `/console/approvals/${encodeURIComponent(id)}`) : withNotice(outcome.message));
      return;
    }
    response.redirect(303, outcome.receipt ? `/console/receipts/${encodeURIComponent(outcome.receipt.id)}` : withNotice(outcome.message));
  });

  router.get('/console/rejected', async (request, response) => {
    const { viewer, principal } = signed(response);
    const filters = rejectionFilters(request.query as Record<string, unknown>);
    // everyone sees what was refused to them; approvers and admins see every caller's (as GET /v1/rejections)
    const rejections = await backend.rejections(rejectionQuery(principal.seesAll ? filters : { ...filters, caller: principal.name }));
    send(response, page('Rejected', rejectedView(rejections, filters, principal.seesAll), viewer, '/console/rejected'));
  });

  router.get('/console/registry', async (request, response) => {
    const { index, scanError } = backend.registry();
    const scans = await backend.events.recent(['scan.completed', 'scan.failed'], 30);
    // a page of tools, as GET /v1/tools: every tool of a 20,000-tool registry made one 13.7 MB page (review J F7)
    const offset = registryOffset(index, request.query as Record<string, unknown>);
    const { principal, viewer } = signed(response);
    // a broken file's path and errors only to an admin, as GET /v1/tools (review Z2-3)
    // the registry's path as a receipt's source is read: whole by an admin, else its folder's name (review Z9, Z9-5)
    send(response, page('Registry', registryView(index, scanProblemsFor(index, new Set(principal.roles)), scanError, scans, offset, principal.roles.includes('admin')), viewer, '/console/registry'));
  });

  router.get('/console/sessions', async (_request, response) => {
    const { principal, viewer } = signed(response);
    const sessions = (await backend.sessions()).filter((session) => principal.seesAll || session.principal === principal.name);
    send(response, page('Sessions', sessionsView(sessions), viewer, '/console/sessions'));
  });

  return router;
}

/** The receipts a principal may list: everyone's for an admin or approver, else only its own calls. */
function ownCalls(principal: ConsolePrincipal, query: ConsoleReceiptQuery): ConsoleReceiptQuery {
  return principal.seesAll ? query : { ...query, caller: principal.name };
}

/** Why a sign-in from a plain-http page of `origin` is refused while the cookie is Secure, and the ways out. */
function insecureOriginMessage(origin: string): string {
  return `Not signed in: this gateway sets its sign-in cookie Secure (console.secure_cookies is true, or auto and the gateway listens beyond loopback), and a browser keeps a Secure cookie only over https — this page came over plain http (${origin}), so every page would send you back here. Open the console over https (a TLS proxy in front of the gateway), or from the gateway's own machine at http://127.0.0.1 when it listens there too (0.0.0.0); or, on a network you trust, set console.secure_cookies: false (HLDP_CONSOLE_SECURE_COOKIES=false), knowing that the token and the cookie then cross it in clear.`;
}

/** Where to go after signing in: a console path only (never another site). */
function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/console\/[A-Za-z0-9/_?=&%.+-]*$/.test(value) && !value.startsWith('//') ? value : '/console/failures';
}

const isRawField = (value: string): value is ConsoleRawField => value === 'output' || value === 'error' || value === 'stderr';

function htmlNotFound(message: string): Html {
  return html`<h1>Not found</h1><p>${message}</p>`;
}
