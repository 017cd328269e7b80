import { type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

/** `hldp gatekeeper`: a standalone gatekeeper `/exec` server on a host the tools act on. */
export const gatekeeperCommand: Command = {
  name: 'gatekeeper',
  usage: '[--port P] [--host H] [--root DIR] [--sandbox auto|required|off]',
  summary: 'run a standalone gatekeeper POST /exec server (bearer token from HLDP_GATEKEEPER_TOKEN)',
  options: { port: { type: 'string', short: 'p' }, host: { type: 'string' }, root: { type: 'string' }, sandbox: { type: 'string' } },
  optionHelp: { port: 'P: the port to listen on (default 3910)', host: 'H: the address to listen on (default 127.0.0.1)' },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { logLevel, wholeNumber } = await import('../../config/index.js');
    // the same checks and messages as a gateway's: HLDP_LOG_LEVEL went to pino unchecked (review R, R6)
    const port = typeof flags.port === 'string' ? wholeNumber(flags.port, '--port', 65535) : 3910;
    const level = logLevel(process.env.HLDP_LOG_LEVEL) ?? 'info';
    const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
    const token = process.env.HLDP_GATEKEEPER_TOKEN;
    // a standalone gatekeeper runs commands for whoever holds the token: there is always one, and the operator chose it
    if (!token || token.length < 16) {
      throw new UsageError('set HLDP_GATEKEEPER_TOKEN to a long random secret (at least 16 characters), and give the gateway the same one as gatekeepers.<name>.token');
    }
    // SIGINT and SIGTERM are caught from here, before the sandbox's probe and the listen: caught only once it listened, a
    // supervisor's stop during the start met Node's default and ended the process without its shutdown (review memz23,
    // as hldp serve); one during the start stops the gatekeeper once it is up, a second ends it at once
    let stopWhenStarted = false;
    let stop = (): void => void (stopWhenStarted = true);
    const onSignal = (): void => stop();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    const { createLogger } = await import('../create-logger.js');
    const { startGatekeeper } = await import('../../gatekeeper/index.js');
    const { createSandbox } = await import('../../sandbox/index.js');
    const { sandboxMode, OWN_FOLDERS, PACKAGE_ROOT } = await import('../../config/index.js');
    const { sandboxWarnings, workspaceWarnings } = await import('../../gateway/service/index.js');
    const mode = sandboxMode(typeof flags.sandbox === 'string' ? flags.sandbox : undefined, '--sandbox') ?? sandboxMode(process.env.HLDP_SANDBOX) ?? 'auto';
    const logger = createLogger(level);
    const root = typeof flags.root === 'string' ? flags.root : process.cwd();
    // probed before it listens: what exec cannot enforce here is said before the first command runs
    // a root gatekeeper runs commands as nobody, or as HLDP_SANDBOX_RUN_AS (a user's name, a uid, or root)
    const runAs = process.env.HLDP_SANDBOX_RUN_AS;
    const sandbox = await createSandbox({ mode, protect: OWN_FOLDERS, ...(runAs ? { runAs } : {}), onNotice: (message) => logger.warn({ sandbox: 'run_as' }, message) });
    const warnings = [...sandboxWarnings(sandbox.status), ...workspaceWarnings(root, PACKAGE_ROOT, '--root')];
    for (const warning of warnings) logger.warn({ sandbox: sandbox.status.sandbox }, warning);
    const running = await startGatekeeper({ host, port, root, token, logger, sandbox }).catch(async (error: unknown) => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      await sandbox.close();
      throw error;
    });
    for (const warning of warnings) io.stderr.write(`hldp: WARNING: ${warning}\n`);
    io.stderr.write(`hldp: gatekeeper at ${running.url}/exec, root ${running.root}, sandbox ${sandbox.status.sandbox}\n`);
    await new Promise<void>((resolve) => {
      stop = () => void Promise.all([sandbox.close(), running.close()]).then(() => resolve(), () => resolve());
      if (stopWhenStarted) stop();
    });
    return 0;
  },
};
