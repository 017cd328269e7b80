import { REPOSITORY_OPTIONS, type Command } from '../command.js';
import { toolCount } from '../../core/index.js';
import { UsageError } from '../usage-error.js';

/** `hldp mcp`: the registry's tools as an MCP server on stdin/stdout; logs go to stderr, stdout is the protocol's. */
export const mcpCommand: Command = {
  name: 'mcp',
  usage: '[--repo R] [--ref REF] [--config FILE] [--toolsets a,b] [--as-local]',
  summary: 'serve the tools over MCP on stdin/stdout (for MCP clients; the HTTP endpoint is /mcp in hldp serve); acts for the principal of HLDP_TOKEN, or local (where principals are configured, only with --as-local)',
  options: { ...REPOSITORY_OPTIONS, toolsets: { type: 'string' }, 'as-local': { type: 'boolean' } },
  maxPositionals: 0,
  async run(flags) {
    const { configFromFlags } = await import('../open-registry.js');
    const { createLogger } = await import('../create-logger.js');
    const { Gateway } = await import('../../gateway/service/index.js');
    const { RescanScheduler } = await import('../../gateway/http/index.js');
    const { serveMcpStdio } = await import('../../mcp-front/index.js');
    const config = configFromFlags(flags);
    const { cliCaller, mcpCallerProblem } = await import('../with-gateway.js');
    // refused before anything starts: no sandbox probe, no store opened for a server that will not run
    const problem = mcpCallerProblem(config, flags['as-local'] === true);
    if (problem) throw new UsageError(problem);
    const logger = createLogger(config.logLevel).child({ surface: 'mcp' });
    const gateway = await Gateway.open({ config, logger, probeSandbox: true });
    let principal: string;
    try {
      principal = cliCaller(gateway);
    } catch (error) {
      await gateway.close();
      throw error;
    }
    await gateway.warmUp();
    const toolsets = typeof flags.toolsets === 'string' ? flags.toolsets.split(',').map((name) => name.trim()).filter(Boolean) : undefined;
    const unknown = (toolsets ?? []).filter((name) => !gateway.sessions.registryView().toolset(name));
    if (unknown.length) {
      await gateway.close();
      const available = gateway.registry.index.toolsets.map((toolset) => toolset.name).join(', ') || 'none';
      throw new UsageError(`--toolsets: no toolset ${unknown.join(', ')}; available: ${available}`);
    }
    // a long session sees new tools (and its client gets tools/list_changed) without a restart
    const scheduler = new RescanScheduler(gateway, logger);
    scheduler.poll(config.repository.pollIntervalMs);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    try {
      logger.info({ source: gateway.registry.index.source, commit: gateway.registry.index.commit, tools: toolCount(gateway.registry.index) }, 'MCP server on stdio');
      // as serve: the client is answered (initialize, tools/list, calls by name) while the search index loads; tool_find waits for it
      gateway.prepareInBackground();
      await serveMcpStdio(gateway, { signal: stop.signal, principal, ...(toolsets ? { toolsets } : {}) });
      return 0;
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      await scheduler.stop();
      // calls in flight finish and store their receipts before the store closes
      await gateway.close();
    }
  },
};
