import { JSON_OPTION, writeJson, writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

/** `hldp receipts`: stored receipts, newest first; with an id, one receipt in full; `verify` walks the hash chain. */
export const receiptsCommand: Command = {
  name: 'receipts',
  usage: '[ID | verify] [--failed|--ok] [--tool T] [--since ISO] [--limit N] [--json]',
  summary: 'read stored receipts, newest first (one in full with its id); verify checks their hash chain',
  options: {
    ...JSON_OPTION,
    config: { type: 'string', short: 'c' },
    failed: { type: 'boolean' },
    ok: { type: 'boolean' },
    tool: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string', short: 'n' },
  },
  maxPositionals: 1,
  async run(flags, positionals, io) {
    if (flags.failed && flags.ok) throw new UsageError('--failed and --ok exclude each other');
    const limit = flags.limit === undefined ? 20 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
    if (typeof flags.since === 'string' && Number.isNaN(Date.parse(flags.since))) throw new UsageError('--since must be an ISO date or time, e.g. 2026-11-29T10:00:00Z');
    const { configFromFlags } = await import('../open-registry.js');
    const { openConfiguredStore } = await import('../../service/index.js');
    const config = configFromFlags(flags);
    const store = await openConfiguredStore(config);
    try {
      if (positionals[0] === 'verify') {
        const { printChainReport } = await import('../print-chain-report.js');
        return printChainReport(await store.receipts.verify(), io, flags.json === true);
      }
      const { receiptDetail, summaryLine } = await import('../format-outcome.js');
      const id = positionals[0];
      if (id) {
        const receipt = await store.receipts.get(id);
        if (!receipt) {
          io.stderr.write(`no receipt '${id}' in ${config.store.url ? 'the PostgreSQL store' : config.receiptsDb}\n`);
          return 1;
        }
        if (flags.json) writeJson(io, receipt);
        else writeLines(io.stdout, [receiptDetail(receipt)]);
        return 0;
      }
      const receipts = await store.receipts.list({
        limit,
        ...(flags.failed ? { status: 'failed' as const } : flags.ok ? { status: 'ok' as const } : {}),
        ...(typeof flags.tool === 'string' ? { tool: flags.tool } : {}),
        ...(typeof flags.since === 'string' ? { since: flags.since } : {}),
      });
      if (flags.json) writeJson(io, receipts);
      else writeLines(io.stdout, receipts.map((receipt) => `${receipt.started_at}  ${summaryLine(receipt)}`));
      return 0;
    } finally {
      await store.close();
    }
  },
};
