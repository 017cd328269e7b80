import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { parseTimeout, TIMEOUT_OPTION } from '../timeout-option.js';

/** `hldp confirm`: run exactly the call a confirmation token stands for. */
export const confirmCommand: Command = {
  name: 'confirm',
  usage: `TOKEN [--timeout MS] ${REPOSITORY_USAGE} [--json]`,
  summary: 'run the call that was waiting for confirmation',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION, ...TIMEOUT_OPTION },
  maxPositionals: 1,
  async run(flags, positionals, io) {
    const token = positionals[0];
    if (!token) throw new UsageError('confirm needs the token a call printed, e.g. hldp confirm 3kq...');
    const deadline = parseTimeout(flags.timeout);
    const { cliCaller, withGateway } = await import('../with-gateway.js');
    const { runInterruptible } = await import('../interrupt.js');
    // the token is looked up in the store: one that does not exist is said, never created (review userZ4, F7)
    return withGateway(flags, io, async (gateway) => {
      const { printOutcome } = await import('../format-outcome.js');
      const { warnIfStale } = await import('../stale-index.js');
      // the run is checked against this index (the tool, its params, the commit): a stale one is said, as hldp call says it
      const { stale } = gateway.registry.index;
      warnIfStale(gateway.registry.index, io);
      // this process reads its own --repo (the default when none is given), maybe not the one the call was made
      // against: a request of another commit is left pending, never cancelled here (review N, N7)
      // as hldp call: Ctrl-C or SIGTERM cancels the run, its CANCELLED receipt stored and printed (review K, K12)
      return runInterruptible(async (signal) => printOutcome(await gateway.confirm(token, { ...deadline, caller: cliCaller(gateway), signal, leaveIfElsewhere: true }), io, Boolean(flags.json), stale));
    }, 'required', 'read');
  },
};
