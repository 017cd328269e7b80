import { REPOSITORY_OPTIONS, type Command } from '../command.js';

/** `hldp mcp`: the registry's tools as an MCP server on stdin/stdout; logs go to stderr, stdout is the protocol's. */
export const mcpCommand: Command = {
  name: 'mcp',
  usage: '[--repo R] [--ref REF] [--config FILE]',
  summary: 'serve the tools over MCP on stdin/stdout (for MCP clients; the HTTP endpoint is /mcp in hldp serve)',
  options: { ...REPOSITORY_OPTIONS },
  maxPositionals: 0,
  async run(flags) {
    const { configFromFlags } = await import('../open-registry.js');
    const { Gateway } = await import('../../service/index.js');
    const { serveMcpStdio } = await import('../../mcp/index.js');
    const { default: pino } = await import('pino');
    const config = configFromFlags(flags);
    const logger = pino({ level: config.logLevel, base: { service: 'brush-holder', surface: 'mcp' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));
    const gateway = await Gateway.open({ config, logger });
    // poll the repository, so that a long session sees new tools (and its client gets tools/list_changed)
    let scanning: Promise<unknown> | undefined;
    const poll = config.repository.pollIntervalMs > 0
      ? setInterval(() => {
          scanning ??= gateway.rescan().catch(() => undefined).finally(() => (scanning = undefined));
        }, config.repository.pollIntervalMs).unref()
      : undefined;
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    try {
      logger.info({ source: gateway.registry.index.source, commit: gateway.registry.index.commit, tools: gateway.tools().length }, 'MCP server on stdio');
      await serveMcpStdio(gateway, { signal: stop.signal });
      return 0;
    } finally {
      if (poll) clearInterval(poll);
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      await scanning;
      // calls in flight finish and store their receipts before the store closes
      await gateway.close();
    }
  },
};
