import { REPOSITORY_OPTIONS, REPOSITORY_USAGE, type Command, type CommandIo, type Flags } from '../command.js';
import type { Gateway } from '../../gateway/service/index.js';
import { toolCount } from '../../core/index.js';
import { catchStartSignals } from '../start-signals.js';
import { UsageError } from '../usage-error.js';

// after a signal, how long the cancelled calls may take to end and store their receipts before the process exits
// anyway (as serve's second signal): a cancelled run is killed (SIGTERM, SIGKILL 100 ms later) and its pipes let go within a second
const SECOND_SIGNAL_BOUND_MS = 10_000;

/** `hldp mcp`: the registry's tools as an MCP server on stdin/stdout; logs go to stderr, stdout is the protocol's. */
export const mcpCommand: Command = {
  name: 'mcp',
  usage: `${REPOSITORY_USAGE} [--toolsets a,b] [--as-local]`,
  summary: 'serve the tools over MCP on stdin/stdout (for MCP clients; the HTTP endpoint is /mcp in hldp serve); acts for the principal of HLDP_TOKEN, or local (where principals are configured, only with --as-local)',
  options: { ...REPOSITORY_OPTIONS, toolsets: { type: 'string' }, 'as-local': { type: 'boolean' } },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    // SIGINT and SIGTERM are caught from here, before the start (the scan, the store, the sandbox's probe): caught only
    // once it served, a client's stop during the start met Node's default and ended the process mid-start, its store
    // and its row in the roll of live instances left as they were (memz23, as serve and gatekeeper). One during the
    // first scan stops it (a remote's fetch dropped), nothing opened; one later lets the start finish and closes the
    // gateway; either exits 130 / 143 without serving; a second exits at once (as serve: review Z17, Z17-6)
    const starting = catchStartSignals('hldp mcp');
    let started: Started;
    let opened = undefined as Gateway | undefined;
    try {
      started = await startGateway(flags, starting.signal, (gateway) => (opened = gateway));
    } catch (error) {
      await opened?.close();
      starting.dispose();
      const stopped = starting.stopped(opened ? 'start' : 'scan');
      if (stopped === undefined) throw error;
      return stopped;
    }
    if (starting.received() !== undefined) {
      // closed as after serving (its store, its row in the roll marked left); a second signal meanwhile exits at once
      await started.gateway.close().finally(() => starting.dispose());
      return starting.stopped('start')!;
    }
    // the stop signals' own handling is put in place in this same turn (serve imports nothing first): none falls between
    starting.dispose();
    return serve(started, io);
  },
};

type Started = Awaited<ReturnType<typeof startGateway>>;

/** Opens the gateway for `hldp mcp` (its first scan stopped by `signal`; `opened` is told it as soon as it is open, to close it if the start then fails): the caller, the toolsets, and what serving it imports. */
async function startGateway(flags: Flags, signal: AbortSignal, opened: (gateway: Gateway) => void) {
  const { configFromFlags } = await import('../open-registry.js');
  const { createLogger } = await import('../create-logger.js');
  const { Gateway, warnOfWholeListing } = await import('../../gateway/service/index.js');
  const { RescanScheduler } = await import('../../gateway/http/index.js');
  const { serveMcpStdio } = await import('../../mcp-front/index.js');
  const { registryStartLines } = await import('../start-warnings.js');
  const config = configFromFlags(flags);
  const { cliCaller, mcpCallerProblem } = await import('../with-gateway.js');
  // refused before anything starts: no sandbox probe, no store opened for a server that will not run
  const problem = mcpCallerProblem(config, flags['as-local'] === true);
  if (problem) throw new UsageError(problem);
  const logger = createLogger(config.logLevel).child({ surface: 'mcp' });
  const gateway = await Gateway.open({ config, logger, probeSandbox: true, signal });
  opened(gateway);
  const principal = cliCaller(gateway);
  await gateway.warmUp();
  const toolsets = typeof flags.toolsets === 'string' ? flags.toolsets.split(',').map((name) => name.trim()).filter(Boolean) : undefined;
  // refused as /mcp?toolsets= refuses it: an unknown toolset, or one holding no tool this principal may use (whose
  // session could not open: the server started and failed every request instead of exiting 2, review userV)
  const refused = gateway.sessions.toolsetProblem(toolsets ?? [], principal);
  if (refused) throw new UsageError(`--toolsets: ${refused.message} (${refused.code})`);
  return { config, logger, gateway, principal, toolsets, modules: { warnOfWholeListing, RescanScheduler, serveMcpStdio, registryStartLines } };
}

/** Serves the started gateway on stdin/stdout until stdin closes or a signal stops it; closes it. */
async function serve({ config, logger, gateway, principal, toolsets, modules }: Started, io: CommandIo): Promise<number> {
  const { warnOfWholeListing, RescanScheduler, serveMcpStdio, registryStartLines } = modules;
  // a long session sees new tools (and its client gets tools/list_changed) without a restart
  const scheduler = new RescanScheduler(gateway, logger);
  scheduler.poll(config.repository.pollIntervalMs);
  const finish = new AbortController();
  const stop = new AbortController();
  const stopSignals = onStopSignals(gateway, { finish, stop }, io);
  try {
    // what hldp serve says at start of the registry against this config, in the same words (review userZ10, U10-9)
    const { notes, warnings } = registryStartLines(gateway.registry.index, config, 'hldp validate says the same');
    for (const line of [...notes, ...warnings.map((warning) => `WARNING: ${warning}`)]) io.stderr.write(`hldp mcp: ${line}\n`);
    logger.info({ source: gateway.registry.index.source, commit: gateway.registry.index.commit, tools: toolCount(gateway.registry.index) }, 'MCP server on stdio');
    // as serve: the client is answered (initialize, tools/list, calls by name) while the search index loads; tool_find waits for it
    gateway.prepareInBackground();
    // without --toolsets the session lists every tool it may use: said when that is more than a prompt holds (review userZ, Z6)
    // (off the path to answering initialize; it reads definitions only until the prompt budget is passed)
    if (!toolsets?.length) setImmediate(() => warnOfWholeListing(gateway, logger, 'start hldp mcp with --toolsets a,b'));
    await serveMcpStdio(gateway, { finish: finish.signal, signal: stop.signal, principal, onProblem: (message) => logger.warn(message), ...(toolsets ? { toolsets } : {}) });
    return 0;
  } finally {
    await scheduler.stop();
    // calls in flight finish (or, after a signal, end cancelled) and store their receipts before the store closes
    await gateway.close();
    stopSignals.dispose();
  }
}

/**
 * SIGTERM or SIGINT (a client's usual stop after closing stdin, or Ctrl-C): the calls in flight are cancelled (their
 * process groups killed), each stores its CANCELLED receipt saying the gateway was stopped and is answered, then the
 * server exits. A second signal waits on for those receipts (at most 10 s after the first), a third exits at once.
 * 10 s after the first, a server still waiting to answer a request with no call left in flight stops serving.
 * Before, a second signal ended the process at once, and the cancelled calls left no receipt (review N, N10, as serve).
 */
function onStopSignals(gateway: Gateway, { finish, stop: stopServing }: { finish: AbortController; stop: AbortController }, io: CommandIo): { dispose(): void } {
  let signals = 0;
  const stop = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals === 1) {
      const calls = gateway.callsInFlight;
      if (calls > 0) io.stderr.write(`hldp mcp: ${signal}: cancelling ${calls} call(s) in flight, storing their receipts, then exiting (a third signal exits at once)\n`);
      gateway.stopCalls();
      finish.abort();
      setTimeout(() => {
        // the rest of closing (the search index kept, the store closed) is not cut short: only calls that will not end;
        // a request the client left unanswered no longer holds the server open (review userU, F10)
        if (gateway.callsInFlight === 0) return void stopServing.abort();
        io.stderr.write(`hldp mcp: calls still in flight ${SECOND_SIGNAL_BOUND_MS / 1000} s after being cancelled: exiting without their receipts\n`);
        process.exit(1);
      }, SECOND_SIGNAL_BOUND_MS).unref();
      return;
    }
    if (signals === 2) {
      io.stderr.write(`hldp mcp: ${signal} again: still storing the receipts of the cancelled calls (a third signal exits at once)\n`);
      return;
    }
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  const onInterrupt = (): void => stop('SIGINT');
  const onTerminate = (): void => stop('SIGTERM');
  process.on('SIGINT', onInterrupt).on('SIGTERM', onTerminate);
  return { dispose: () => void process.off('SIGINT', onInterrupt).off('SIGTERM', onTerminate) };
}
