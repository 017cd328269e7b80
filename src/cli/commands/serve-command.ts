import { join } from 'node:path';
import type { GatewayConfig } from '../../config/index.js';
import { toolCount } from '../../core/index.js';
import { REPOSITORY_OPTIONS, REPOSITORY_USAGE, type Command, type CommandIo } from '../command.js';
import type { RunningServer } from '../../gateway/http/index.js';
import { catchStartSignals } from '../start-signals.js';
import { terminalSafe } from '../terminal-safe.js';

// after a second signal, how long the cancelled calls may take to end and store their receipts before the process exits
// anyway: a cancelled run is killed (SIGTERM, SIGKILL 100 ms later) and its pipes let go within a second
const SECOND_SIGNAL_BOUND_MS = 10_000;

// once the gateway has stopped, how long the process may stay before what holds it is named and it exits anyway: a
// handle left open by a library (postgres.js reconnected the store after it closed: CI at 9dff67e) must not keep a
// stopped gateway running for good, and must not go unsaid either
const EXIT_AFTER_STOP_BOUND_MS = 5000;

type Signal = 'SIGINT' | 'SIGTERM';
// a third signal exits at once, with the shell's status for it
const EXIT_CODES: Record<Signal, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Where the gateway keeps its records in the default data folder (no HLDP_DATA_DIR, data_dir, receipts_db or store URL)
 * and a gateway of another repository used it before: they share receipts, approvals and sessions.
 */
function sharedDataWarnings(config: GatewayConfig, repository: string, { defaultDataDir, otherRepositoriesServed }: AnnouncementModules): string[] {
  if (config.store.url !== undefined || config.dataDir !== defaultDataDir(process.env) || config.receiptsDb !== join(config.dataDir, 'receipts.db')) return [];
  const others = otherRepositoriesServed(config.dataDir, repository);
  if (others.length === 0) return [];
  const named = others.slice(0, 3).map((other) => `'${terminalSafe(other)}'`).join(', ') + (others.length > 3 ? ` and ${others.length - 3} more` : '');
  return [
    `the default data folder ${terminalSafe(config.dataDir)} is shared by every gateway this user starts without HLDP_DATA_DIR: its receipts, approvals and sessions ` +
      `also hold those of gateways that served ${named} (each receipt's source names its repository); to keep this one's apart, start it with HLDP_DATA_DIR=<a folder of its own> (or data_dir in the config)`,
  ];
}

// what the announcement needs beyond the server, imported while the server starts: imported after it, a module read
// from disk let the matcher's preparation (begun once the server listens) run before the line that says where it
// listens, which a supervisor or a user waits for (issue #18)
const announcementModules = async () => {
  const [config, sharedData, service, start] = await Promise.all([import('../../config/index.js'), import('../shared-data-folder.js'), import('../../gateway/service/index.js'), import('../start-warnings.js')]);
  return { defaultDataDir: config.defaultDataDir, PACKAGE_ROOT: config.PACKAGE_ROOT, otherRepositoriesServed: sharedData.otherRepositoriesServed, sandboxWarnings: service.sandboxWarnings, workspaceWarnings: service.workspaceWarnings, registryStartLines: start.registryStartLines };
};
type AnnouncementModules = Awaited<ReturnType<typeof announcementModules>>;

/** `hldp serve`: the HTTP API with an embedded gatekeeper, on 127.0.0.1:3900 by default. */
export const serveCommand: Command = {
  name: 'serve',
  usage: `${REPOSITORY_USAGE} [--port P] [--host H]`,
  summary: 'serve the HTTP API (and /mcp) with an embedded gatekeeper on 127.0.0.1:3900',
  options: { ...REPOSITORY_OPTIONS, port: { type: 'string', short: 'p' }, host: { type: 'string' } },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { configFromFlags } = await import('../open-registry.js');
    const { createLogger } = await import('../create-logger.js');
    const { packageVersion } = await import('../package-version.js');
    const { startServer } = await import('../../gateway/http/index.js');
    const { mountMcp } = await import('../../mcp-front/index.js');
    const config = configFromFlags(flags, 'required', true);
    const logger = createLogger(config.logLevel);
    // SIGINT and SIGTERM are caught from here, before the start: caught only once "serving" was written, a supervisor's
    // stop sent as it read that line (or during the scan) found no listener yet, and Node's default ended the process
    // at once — no shutdown, its row in the store's roll of live instances never marked left, its log's last lines lost.
    // The first scan is stopped by the first signal: a remote that drips its answer held the stop for the fetch's
    // 5-15 minute bounds, and a supervisor's stop waited its own timeout to kill (review Z17, Z17-6); one later in the
    // start lets it finish, then the gateway stops unannounced; either exits 143 / 130 (as hldp mcp)
    const starting = catchStartSignals('hldp', (signal) => logger.info({ signal }, 'stopping once started: the start is under way'));
    const announcing = announcementModules();
    // a start that fails leaves the announcement to nobody
    announcing.catch(() => undefined);
    // a rescan of a checkout says what of it is not served, as the start says it (review userZ5, F15)
    const uncommitted = async (signal?: AbortSignal): Promise<string[]> => (await import('../uncommitted-definitions.js')).uncommittedDefinitions(config.repository.source, config.repository.ref, signal);
    const server = await startServer(config, { logger, version: packageVersion(), mountMcp, uncommitted, signal: starting.signal }).catch((error: unknown) => {
      // a start that failed (exit 2) is not held by a signal caught for it
      starting.dispose();
      // stopped while its first scan ran: nothing was opened (no store, no row in the roll of live instances) to close
      const stopped = starting.stopped('scan');
      if (stopped === undefined) throw error;
      logger.info({ signal: starting.received() }, 'stopped while starting: the first scan was stopped, nothing served');
      return process.exit(stopped);
    });
    const whileStarting = starting.received();
    // the running server's own handling, put in place in this same turn: none falls between
    starting.dispose();
    let signals = whileStarting === undefined ? 0 : 1;
    const stopping = new AbortController();
    let stopped!: () => void;
    const closed = new Promise<void>((resolve) => (stopped = resolve));
    const shutDown = (signal: Signal): void => {
      stopping.abort();
      logger.info({ signal }, 'shutting down: letting calls in flight finish');
      server.close().then(stopped, (error: unknown) => {
        logger.error({ err: String(error) }, 'shutdown failed');
        stopped();
      });
    };
    const onSignal = (signal: Signal): void => {
      signals += 1;
      if (signals === 1) return shutDown(signal);
      if (signals === 2) {
        // a second signal does not wait for the calls to end, but still stores a receipt for each: they are cancelled
        // (process groups killed), and the close under way ends once their receipts are stored (review N, N10)
        const calls = server.gateway.callsInFlight;
        logger.warn({ signal, calls_in_flight: calls }, 'stopping now: cancelling the calls in flight and storing their receipts');
        io.stderr.write(`hldp: ${signal} again: cancelling ${calls} call(s) in flight, storing their receipts, then exiting (a third signal exits at once)\n`);
        server.stopCalls();
        setTimeout(() => {
          io.stderr.write(`hldp: calls still in flight after ${SECOND_SIGNAL_BOUND_MS / 1000} s of being cancelled: exiting without their receipts\n`);
          process.exit(1);
        }, SECOND_SIGNAL_BOUND_MS).unref();
        return;
      }
      process.exit(EXIT_CODES[signal]);
    };
    const onSigint = (): void => onSignal('SIGINT');
    const onSigterm = (): void => onSignal('SIGTERM');
    process.on('SIGINT', onSigint).on('SIGTERM', onSigterm);
    // a signal during the start stops the gateway now, unannounced; one while the announcement's modules load, too
    if (whileStarting !== undefined) shutDown(whileStarting);
    else {
      const modules = await announcing;
      if (!stopping.signal.aborted) announce(server, config, io, stopping.signal, modules);
    }
    await closed;
    setTimeout(() => {
      // this timer is unref'd: what is listed is what holds the process (e.g. TCPSocketWrap: a connection left open)
      const held = process.getActiveResourcesInfo().join(', ') || 'nothing Node names';
      io.stderr.write(`hldp: still running ${EXIT_AFTER_STOP_BOUND_MS / 1000} s after the gateway stopped, held open by ${held}: exiting (a bug: please report it)\n`);
      process.exit(1);
    }, EXIT_AFTER_STOP_BOUND_MS).unref();
    // stopped before it said it serves: 143 / 130, as a signal during the first scan (it said 0: fixm25's note)
    return whileStarting === undefined ? 0 : starting.stopped('start')!;
  },
};

/** What `hldp serve` says once it listens: definitions dropped, warnings, the line that it serves, and once matching is ready what of a checkout is not committed. */
function announce(server: RunningServer, config: GatewayConfig, io: CommandIo, stopping: AbortSignal, modules: AnnouncementModules): void {
  const { index } = server.gateway.registry;
  const { notes, warnings } = modules.registryStartLines(index, config, 'GET /healthz says degraded');
  for (const note of notes) io.stderr.write(`hldp: ${note}\n`);
  const { sandboxWarnings, workspaceWarnings, PACKAGE_ROOT } = modules;
  // said once more in plain words beside the log, before the line that announces the server: an operator must not miss that tools run unisolated
  for (const warning of [...warnings, ...sandboxWarnings(server.gateway.sandbox), ...workspaceWarnings(config.workspaceRoot, PACKAGE_ROOT, undefined, server.gateway.sandbox?.runAs), ...sharedDataWarnings(config, index.source, modules)]) io.stderr.write(`hldp: WARNING: ${warning}\n`);
  io.stderr.write(`hldp: serving ${toolCount(index)} tools from ${index.source} at ${server.url}\n`);
  // a checkout is served as committed: an author who edited a TOOL.hdlp expects the edit to be what runs. Said once
  // matching is ready, not before listening: `git status` over 100,000 definitions takes ~2 s of a core, which held
  // the announcement (and a warm start's listening) back from 0.7 s to 2.6 s
  // the matter of a running server: a stop kills the `git status` under way, which held a stopping server past its
  // exit bound at 100,000 definitions, or on a loaded machine (it exited 1, "held open by … ProcessWrap")
  void (async () => {
    while (server.gateway.matching === 'loading' && !stopping.aborted) await new Promise((resolve) => setTimeout(resolve, 100).unref());
    if (stopping.aborted) return;
    const { uncommittedDefinitions, warnIfUncommitted } = await import('../uncommitted-definitions.js');
    const uncommitted = await uncommittedDefinitions(config.repository.source, config.repository.ref, stopping);
    if (!stopping.aborted) warnIfUncommitted(config.repository.source, uncommitted, 'served', io);
  })().catch(() => undefined);
}
