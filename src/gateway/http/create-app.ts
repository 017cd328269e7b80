import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isLoopback, registrySourceSeen, toolCount, type Role } from '../../core/index.js';
import { documentedRoutes, errorHandler, loopbackHostGuard, methodGuard, notFoundHandler, receiptReadsOf, requestLog } from '../../http-edge/index.js';
import { sandboxHealth } from '../../sandbox/index.js';
import { securityHeaders } from '../../console/index.js';
import { eventStreamRoute } from '../../events/index.js';
import { SearchIndexLoadingError, type Gateway } from '../service/index.js';
import { apiRouter } from './api-routes.js';
import { approvalRouter } from '../../oversight/index.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { openApiDocument } from '../../openapi/index.js';
import { policyRouter } from './policy-routes.js';
import { principalAuth, principalOf, queryGuard, requestPrincipal } from '../../request-checks/index.js';
import type { RescanScheduler } from './rescan-scheduler.js';
import { sessionRouter } from './session-routes.js';
import { webhookRouter } from '../../webhooks/index.js';

/** Everything the HTTP app is built from. */
export interface AppOptions {
  gateway: Gateway;
  logger: Logger;
  metrics: GatewayMetrics;
  scheduler: RescanScheduler;
  version: string;
  /** tells the other instances sharing the store that a push arrived */
  announceRescan?: (reason: string) => void;
  /** the repository's definitions edited since the commit served: `POST /v1/scan` answers and logs them */
  uncommitted?: (signal?: AbortSignal) => Promise<string[]>;
  /** mounts further authenticated routes (the MCP endpoint) */
  extraRoutes?: (app: Express, auth: RequestHandler) => void;
}

const ROUTES = 'see GET /v1/openapi.json for the routes';
/** Who may read `GET /metrics`: it counts every principal's calls by tool, as only these may read them. */
const METRICS_ROLES: readonly Role[] = ['admin', 'approver', 'metrics'];

/** The gateway's HTTP API as an express app: testable in-process, and what `hldp serve` listens with. */
export function createApp(options: AppOptions): Express {
  const { gateway, logger, metrics, scheduler } = options;
  const { config } = gateway;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // a strict CSP (no inline script, nothing from elsewhere) and no framing or sniffing, on every response
  app.use(securityHeaders());
  app.use(requestLog(logger));
  if (isLoopback(config.listen.host)) app.use(loopbackHostGuard(config.listen.publicUrl));
  const document = openApiDocument(options.version);
  const routes = documentedRoutes(document);
  // every documented route's query string, checked against the parameters the document lists for it
  app.use(queryGuard(routes));
  // a root gateway's tools (run_as) are never the operator at this machine, whatever loopback they share with it
  const toolUid = (): number | undefined => gateway.sandbox?.runAs?.uid;
  app.get('/v1/openapi.json', (_request, response) => {
    response.json(document);
  });
  // a probe needs no token; what the index is and where it comes from is for those who hold it
  const detailsReader = (request: Request) => requestPrincipal(gateway.principals, request, toolUid);
  app.get('/healthz', async (request, response) => {
    const { index } = gateway.registry;
    const scanError = gateway.scanError;
    const store = await gateway.storeHealth();
    const sandbox = gateway.sandbox;
    // dropped definitions are a degraded service: some tool an agent expects is not there; so is a store that does not
    // answer, and so are local tools that cannot run at all (sandbox required and off)
    // …or because a root gateway cannot run them as sandbox.run_as (and so runs none)
    // …or because the kernel takes no system-call filter, without which no sandboxed run starts
    const unrunnable = (sandbox?.mode === 'required' && sandbox.sandbox === 'off') || (sandbox?.runAs !== undefined && sandbox.runAsReason !== undefined) || sandbox?.seccompReason !== undefined;
    const status = index.stale || scanError || index.errors.length > 0 || !store.ok || unrunnable ? 'degraded' : 'ok';
    const reader = detailsReader(request);
    if (!reader) {
      response.json({ status });
      return;
    }
    // the registry's path on this host as a receipt's `source.repository` is read: whole by an admin, else by its
    // folder's name (or remote URL without credentials) and `source_withheld` saying so in the registry's own words,
    // as the console's Registry page does (review Z9, Z9-5; userZ9, U9-10)
    const seen: { repository: string; withheld?: string } = reader.roles.has('admin') ? { repository: index.source } : registrySourceSeen(index.source);
    response.json({
      status,
      source: seen.repository, ...(seen.withheld ? { source_withheld: seen.withheld } : {}), commit: index.commit, tools: toolCount(index), errors: index.errors.length,
      ...(index.stale ? { stale: index.stale } : {}),
      ...(scanError ? { scan_error: scanError } : {}),
      store: { kind: gateway.store.kind, ...store },
      calls_in_flight: gateway.callsInFlight,
      matching: gateway.matching,
      ...(sandbox ? { sandbox: sandboxHealth(sandbox) } : {}),
      ...(gateway.mcpServers.names.length > 0 ? { mcp_servers: gateway.mcpServers.status() } : {}),
    });
  });
  // the webhook authenticates by its signature, not by the API token (Forgejo cannot send one)
  app.use(webhookRouter({ secret: config.webhookSecret, maxBodyBytes: config.maxBodyBytes, scheduler, served: () => gateway.registry.index, ...(options.announceRescan ? { announce: options.announceRescan } : {}) }));
  // every principal (api_token is one, admin) is admitted; what each may see and run is the rights layer's to say
  const auth: RequestHandler = principalAuth(gateway.principals, toolUid);
  // the metrics count every principal's calls by tool: for those who may read every caller's records (admins and
  // approvers) and for a scraper's principal with the `metrics` role (review J); without credentials, `local` reads them
  app.get('/metrics', auth, async (_request, response) => {
    const principal = principalOf(response);
    if (!METRICS_ROLES.some((role) => principal.roles.has(role))) {
      response.status(403).json({ code: 'ROLE_REQUIRED', error: `principal '${principal.name}' may not read /metrics: they count every principal's calls; it needs one of the roles ${METRICS_ROLES.join(', ')} (give a Prometheus scraper a principal with roles: [metrics])` });
      return;
    }
    const { contentType, text } = await metrics.exposition();
    response.type(contentType).send(text);
  });
  app.use('/v1', auth);
  app.use(sessionRouter(gateway, { maxBodyBytes: config.maxBodyBytes }));
  app.use(policyRouter(gateway));
  // one count of the long receipt texts held for slow readers, whichever route sends them (the console and approval_wait too)
  const receiptReads = receiptReadsOf(gateway);
  app.use(approvalRouter(gateway, { maxBodyBytes: config.maxBodyBytes, receiptReads }));
  const uncommitted = options.uncommitted;
  // "I edited it, rescanned, nothing changed": the rescan says why, as the start does (review userZ5, F15)
  const unserved = uncommitted && (async (signal?: AbortSignal): Promise<string[]> => {
    const edited = await uncommitted(signal);
    if (edited.length > 0) logger.warn({ uncommitted: edited }, `${gateway.registry.index.source} is served as committed at HEAD, so ${edited.length} definition(s) edited since are not; commit them`);
    return edited;
  });
  app.use(apiRouter(gateway, { maxBodyBytes: config.maxBodyBytes, receiptReads, rescansIdle: () => scheduler.idle(), ...(options.announceRescan ? { announce: options.announceRescan } : {}), ...(unserved ? { uncommitted: unserved } : {}) }));
  app.get('/v1/events', eventStreamRoute(gateway.events, principalOf));
  options.extraRoutes?.(app, auth);
  // a documented path asked with a method it does not serve: 405 and Allow, not "no route"
  app.use(methodGuard(routes));
  app.use(notFoundHandler(ROUTES));
  // a match asked while the search index is still loading after the start, past its wait: 503 and when to ask again
  app.use(((error, _request, response, next) => {
    if (!(error instanceof SearchIndexLoadingError) || response.headersSent) return next(error);
    response.status(503).set('Retry-After', String(error.retryAfterSeconds)).json({ code: error.code, error: error.message });
  }) as ErrorRequestHandler);
  app.use(errorHandler(logger, 'gateway'));
  return app;
}
