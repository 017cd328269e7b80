import { formatDiagnostic, toolCount } from '../../core/index.js';
import { REPOSITORY_OPTIONS, type Command } from '../command.js';
import { terminalSafe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';

/** `hldp serve`: the HTTP API with an embedded gatekeeper, on 127.0.0.1:3900 by default. */
export const serveCommand: Command = {
  name: 'serve',
  usage: '[--repo R] [--port P] [--host H] [--config FILE]',
  summary: 'serve the HTTP API (and /mcp) with an embedded gatekeeper on 127.0.0.1:3900',
  options: { ...REPOSITORY_OPTIONS, port: { type: 'string', short: 'p' }, host: { type: 'string' } },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    if (typeof flags.port === 'string' && !/^\d+$/.test(flags.port)) throw new UsageError('--port must be a number from 0 to 65535');
    const { configFromFlags } = await import('../open-registry.js');
    const { createLogger } = await import('../create-logger.js');
    const { packageVersion } = await import('../package-version.js');
    const { startServer } = await import('../../gateway/http/index.js');
    const { mountMcp } = await import('../../mcp-front/index.js');
    const config = configFromFlags(flags);
    const logger = createLogger(config.logLevel);
    const server = await startServer(config, { logger, version: packageVersion(), mountMcp });
    const { index } = server.gateway.registry;
    // a definition left out is named at start: "serving 1 tools" alone hides the two that were dropped
    const dropped = [...new Set(index.errors.map((error) => error.file))];
    if (dropped.length > 0) {
      io.stderr.write(`hldp: ${dropped.length} definition(s) dropped, not served (GET /healthz says degraded):\n${index.errors.map((error) => `  ${terminalSafe(formatDiagnostic(error))}`).join('\n')}\n`);
    }
    const { sandboxWarnings, workspaceWarnings } = await import('../../gateway/service/index.js');
    const { PACKAGE_ROOT } = await import('../../config/index.js');
    // said once more in plain words beside the log, before the line that announces the server: an operator must not miss that tools run unisolated
    for (const warning of [...sandboxWarnings(server.gateway.sandbox), ...workspaceWarnings(config.workspaceRoot, PACKAGE_ROOT)]) io.stderr.write(`hldp: WARNING: ${warning}\n`);
    io.stderr.write(`hldp: serving ${toolCount(index)} tools from ${index.source} at ${server.url}\n`);
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info({ signal }, 'shutting down: letting calls in flight finish');
        server.close().then(resolve, (error: unknown) => {
          logger.error({ err: String(error) }, 'shutdown failed');
          resolve();
        });
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  },
};
