import { JSON_OPTION, writeJson, writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

/** `hldp import mcp --server NAME`: `TOOL.hdlp` drafts from a configured MCP server's `tools/list`, for an author to review and commit. */
export const importCommand: Command = {
  name: 'import',
  usage: 'mcp --server NAME [--out DIR] [--tool T]... [--force] [--config FILE] [--json]',
  summary: "draft TOOL.hdlp files from a configured MCP server's tools (author and why left for you; the gateway never commits them)",
  options: {
    ...JSON_OPTION,
    config: { type: 'string', short: 'c' },
    server: { type: 'string', short: 's' },
    out: { type: 'string', short: 'o' },
    tool: { type: 'string', multiple: true },
    force: { type: 'boolean' },
  },
  optionHelp: {
    force: "over a definition that exists, refresh only the server's fields (display, intent, params_schema, output_schema); author, why, constraints and the rest stay as reviewed", tool: 'T: import only this tool of the server (repeat for more; default: every one)', out: 'DIR: where the drafts go (default tools/)' },
  maxPositionals: 1,
  async run(flags, positionals, io) {
    if (positionals[0] !== 'mcp') throw new UsageError(`import reads MCP servers only: hldp import mcp --server NAME [--out tools/]`);
    const server = flags.server;
    if (typeof server !== 'string' || server === '') throw new UsageError('import mcp needs --server NAME, one of the mcp_servers in the gateway config (--config FILE or HLDP_CONFIG)');
    const { importMcpTools } = await import('../import-mcp.js');
    const only = (flags.tool as unknown as string[] | undefined) ?? [];
    const report = await importMcpTools({ flags, server, out: typeof flags.out === 'string' ? flags.out : 'tools', only, force: flags.force === true });
    if (!report.ok) {
      // --json answers on stdout whatever the outcome (review R, R21)
      if (flags.json) writeJson(io, { code: 'IMPORT_FAILED', error: report.message });
      // the message carries the server's own text (its tools/list error, its tool names): the terminal is the operator's (review S, S2)
      writeLines(io.stderr, [`hldp import: ${report.message}`]);
      return report.exitCode ?? 1;
    }
    if (flags.json) writeJson(io, report);
    else {
      writeLines(io.stdout, report.written.map((entry) => `${entry.path}  (${entry.remote})`));
      const drafted = report.written.filter((entry) => !entry.refreshed).length;
      writeLines(io.stderr, [
        ...report.skipped.map((entry) => `skipped ${entry.path}: it exists (pass --force to refresh what comes from the server)`),
        // over a reviewed definition, what changed and what the reviewer decided that was kept (review userX, X5)
        ...report.written.flatMap((entry) => (entry.refreshed ? refreshLines(entry.path, entry.refreshed) : [])),
        // advice for what was written; with nothing written there is nothing to fill in (review userV, V10)
        drafted
          ? `${drafted} draft(s) from MCP server '${server}'. Fill in author and why in each, run hldp validate, then commit them.`
          : report.written.length
            ? `${report.written.length} definition(s) refreshed from MCP server '${server}': review the diff, run hldp validate, then commit.`
            : `no draft written from MCP server '${server}'${report.skipped.length ? ': every one exists already (pass --force to refresh what comes from the server)' : ''}.`,
      ]);
    }
    return 0;
  },
};

function refreshLines(path: string, refreshed: { changed: string[]; kept: string[] }): string[] {
  return [
    refreshed.changed.length ? `refreshed ${path}: ${refreshed.changed.join(', ')} from the server; author, why, constraints and the rest kept as reviewed` : `unchanged ${path}: the server's fields are as written`,
    ...refreshed.kept.map((decision) => `  kept ${decision}: review it`),
  ];
}
