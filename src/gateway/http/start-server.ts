import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { filesWithErrors, formatDiagnostic, isLoopback, toolCount } from '../../core/index.js';
import { ConfigError, type GatewayConfig } from '../../config/index.js';
import { closeIdleConnectionsUnread, expressServer } from '../../http-edge/index.js';
import { Gateway, warnOfWholeListing } from '../service/index.js';
import { consoleRouter, consoleSessionKey } from '../../console/index.js';
import { announceBroken, startNotifications } from '../../events/index.js';
import { matchBodyCheckerSteps } from '../../request-checks/index.js';
import { consoleBackend } from '../../oversight/index.js';
import { undecidableApprovals } from '../../policy/index.js';
import { createApp } from './create-app.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { linkInstance } from './instance-links.js';
import { RescanScheduler } from './rescan-scheduler.js';

/** A running gateway server. */
export interface RunningServer {
  url: string;
  gateway: Gateway;
  /** stops accepting, lets calls in flight finish and store their receipts, then closes everything */
  close(): Promise<void>;
  /** cancels the calls in flight, so that a `close` under way ends once their CANCELLED receipts are stored */
  stopCalls(): void;
}

/** What `startServer` needs beyond the config. */
export interface ServerOptions {
  logger: Logger;
  version: string;
  /** the sessions' clock (tests move time with it instead of waiting) */
  clock?: () => number;
  /**
   * Mounts MCP over Streamable HTTP (`/mcp`) behind the bearer auth: the MCP front's `mountMcp`, passed in by whoever
   * starts the server, since the MCP front is built on the gateway and the gateway does not import it. Without it, no `/mcp`.
   */
  mountMcp?: (app: Express, gateway: Gateway, options: { auth: RequestHandler }) => { close(): Promise<void> };
  /** the repository's definitions edited since the commit served, which a rescan does not serve (the command line knows git's working tree) */
  uncommitted?: (signal?: AbortSignal) => Promise<string[]>;
  /** stops the start while its first scan runs (a remote's fetch under way is dropped): the start then rejects with the signal's reason, nothing opened (review Z17, Z17-6) */
  signal?: AbortSignal;
}

/** Opens the gateway, starts its embedded gatekeeper and HTTP API, and polls the repository as a webhook fallback. */
export async function startServer(config: GatewayConfig, options: ServerOptions): Promise<RunningServer> {
  if (!isLoopback(config.listen.host) && config.principals.length === 0) {
    throw new ConfigError('listen.host', `'${config.listen.host}' is reachable beyond this machine, so credentials are required: set api_token in the config or HLDP_API_TOKEN (at least 16 characters), or configure principals`);
  }
  const beyond = config.listen.publicUrl === undefined ? undefined : new URL(config.listen.publicUrl);
  // a public address on a gateway without credentials: every client a proxy forwards would be `local`, with every role
  if (beyond !== undefined && !isLoopback(beyond.hostname) && config.principals.length === 0) {
    throw new ConfigError('listen.public_url', `'${beyond.origin}' is an address beyond this machine, reached through a proxy that would forward anyone to this gateway, which has no credentials and would serve every such request as 'local' (every role): configure principals, or set api_token in the config or HLDP_API_TOKEN (at least 16 characters)`);
  }
  const { logger } = options;
  const metrics = new GatewayMetrics();
  const gateway = await Gateway.open({ config, logger, observer: metrics.observer(), probeSandbox: true, ...(options.clock ? { clock: options.clock } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  metrics.indexServed(gateway.registry.index);
  metrics.eventSubscribers(() => gateway.events.subscribers);
  metrics.approvalsWaiting(() => gateway.store.approvals.waiting());
  await gateway.warmUp();
  // from here on, every event in the store's log (this process's, the CLI's, other instances') reaches subscribers
  await gateway.events.start();
  // each (event, target) is POSTed by the one instance whose claim in the shared store wins (U11-12)
  const claim = (event: { id: number }, key: string) => gateway.store.events.claimDelivery(event.id, key, gateway.instanceId, gateway.store.now());
  const notifier = await startNotifications(gateway.events, config.notify, config.events, { counters: (label) => metrics.notifications(label), logger, claim });
  announceBroken(gateway.events, gateway.registry.index);
  const people = consoleBackend(gateway, await consoleSessionKey(config.apiToken, gateway.store.secrets));
  const scheduler = new RescanScheduler(gateway, logger);
  const links = await linkInstance(gateway, scheduler, logger);
  let mcp: { close(): Promise<void> } | undefined;
  const app = createApp({
    gateway, logger, metrics, scheduler, version: options.version,
    announceRescan: (reason) => links.announceRescan(reason),
    ...(options.uncommitted ? { uncommitted: options.uncommitted } : {}),
    // MCP over Streamable HTTP, behind the same bearer auth as /v1
    extraRoutes: (express, auth) => {
      mcp = options.mountMcp?.(express, gateway, { auth });
      // the console for people: its own sign-in (a cookie), so it sits beside the bearer-token routes
      express.use(consoleRouter(people, { secureCookies: config.console.secureCookies, ...(config.console.plainOnLoopback ? { plainOnLoopback: true } : {}), ...(config.listen.publicUrl ? { publicUrl: config.listen.publicUrl } : {}) }));
    },
  });
  const server = await listen(app, config.listen.host, config.listen.port, config.listen.maxConnections, logger).catch(async (error: NodeJS.ErrnoException) => {
    await links.stop();
    await notifier?.stop();
    people.close();
    await gateway.close();
    if (error.code === 'EADDRINUSE') throw new ConfigError('listen.port', `${config.listen.host}:${config.listen.port} is in use; stop what listens there or pass another --port`);
    if (error.code === 'EADDRNOTAVAIL') throw new ConfigError('listen.host', `${config.listen.host} is not an address of this machine`);
    throw error;
  });
  scheduler.poll(config.repository.pollIntervalMs);
  const { port } = server.address() as AddressInfo;
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  const url = `http://${host}:${port}`;
  gateway.useSelfApi(`http://${isLoopback(config.listen.host) ? host : '127.0.0.1'}:${port}`);
  // only now: what needs no search index (calls by name, listings, health) is answered while it is read or built a
  // slice at a time (seconds at 100,000 tools); a match waits for it (or gets 503 SEARCH_INDEX_LOADING past its wait)
  // with the checkers of a match's body, which the first match after ready would otherwise compile
  gateway.prepareInBackground(matchBodyCheckerSteps);
  const { index } = gateway.registry;
  const { dropped, partial } = filesWithErrors(index);
  if (dropped.length > 0) logger.warn({ dropped, errors: index.errors.length }, 'definitions dropped: not served');
  // a toolset missing a member is served with the others: not "dropped" (review userX, X2)
  if (partial.length > 0) logger.warn({ partial }, 'definitions served in part: what they name that is not there is left out');
  logger.info({ url, source: index.source, commit: index.commit, tools: toolCount(gateway.registry.index) }, 'gateway listening');
  // what the start says of the policies against this config (a principal name it lacks, an approve rule none of its
  // principals may decide), said again at each rescan that swaps in a commit where it holds: a push that brought such a
  // name in, or kept it, said nothing (review userZ9, U9-11)
  gateway.onIndexChange(({ index: swapped }) => {
    for (const warning of undecidableApprovals(swapped, config.principals)) logger.warn({ code: warning.code, commit: swapped.commit }, formatDiagnostic(warning));
  });
  // after listening, and off its path: it reads definitions only until the prompt budget is passed (review userZ, Z6)
  setImmediate(() => warnOfWholeListing(gateway, logger, 'clients that should not get them all connect with /mcp?toolsets=a,b (or POST /v1/sessions {"toolsets": [...]})'));
  // prom-client only now, off the path to listening (issue #18): what was counted before is counted as it loads
  metrics.start().catch((error: unknown) => logger.error({ err: error }, 'metrics could not be started'));
  let closing: Promise<void> | undefined;
  return {
    url,
    gateway,
    stopCalls: () => gateway.stopCalls(),
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await scheduler.stop();
        await links.stop();
        await notifier?.stop();
        people.close();
        // ends the MCP sessions' streams, or server.close() would wait for them forever
        await mcp?.close();
        // calls in flight finish and store their receipts before the store closes
        await gateway.close();
        server.closeAllConnections();
        await stopped;
        logger.info('gateway stopped');
      })()),
  };
}

function listen(app: Express, host: string, port: number, maxConnections: number | undefined, logger: Logger): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = expressServer(app, { connectionsCheckingInterval: HEADERS_CHECKED_EVERY_MS }).listen(port, host);
    closeIdleConnectionsUnread(server);
    boundConnections(server, maxConnections, logger);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

// how often a warn line may say that connections were dropped: one a flood of them does not flood the log
const DROPS_LOGGED_EVERY_MS = 10_000;
// a request's headers have 20 s to arrive, looked at every 5 s (Node: 60 s, every 30 s, so 60-90 s): a connection held
// by slow headers gives its place back within 25 s
const HEADERS_TIMEOUT_MS = 20_000;
const HEADERS_CHECKED_EVERY_MS = 5_000;

/**
 * Slow headers give their connection back after 20-25 s (Node's own 60-90 s). At most `maxConnections` open at once
 * when one is set (Node sets no bound: review Z8, Z8-3, 300 held connections, +270 MB); past it Node closes a new
 * connection as it accepts it, unanswered, and says so with 'drop': told at warn, at most once every 10 s. No bound by
 * default: one client holding every place cut off every agent, person and probe (review Z12, finding 1), where without
 * a bound the same 1,100 held sockets cost ~146 MB and every request was answered.
 */
function boundConnections(server: Server, maxConnections: number | undefined, logger: Logger): void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  if (maxConnections === undefined) return;
  server.maxConnections = maxConnections;
  let dropped = 0;
  let told = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - told < DROPS_LOGGED_EVERY_MS) return;
    told = now;
    logger.warn({ dropped, max_connections: maxConnections }, `connections dropped: ${maxConnections} are open, the most listen.max_connections (HLDP_MAX_CONNECTIONS) allows; each new one is closed unanswered until one ends`);
    dropped = 0;
  });
}
