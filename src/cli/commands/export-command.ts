import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeJson, writeLines, type Command, type CommandIo, type Flags } from '../command.js';
import { UsageError } from '../usage-error.js';
import type { ExportFormat, ToolExport } from '../../export/index.js';

/** `hldp export`: the tools as OpenAI, Anthropic or MCP specs, for agents that call the HTTP API instead of MCP. */
export const exportCommand: Command = {
  name: 'export',
  usage: `--format openai|anthropic|mcp ${REPOSITORY_USAGE} [--json]`,
  summary: "print the tools as function specs for an agent's request (--json adds the table from exported names back to registry names)",
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION, format: { type: 'string', short: 'f' } },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { exportTools, EXPORT_FORMATS, metaToolRoutes } = await import('../../export/index.js');
    const format = EXPORT_FORMATS.find((known) => known === flags.format);
    if (!format) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}${typeof flags.format === 'string' ? `, not '${flags.format}'` : ''}`);
    const { warnIfUncommitted, uncommittedDefinitions } = await import('../uncommitted-definitions.js');
    // as HLDP_TOKEN's principal, the tools a fresh session of it lists (GET /v1/sessions/:id/tools?format=), through
    // the same function: those its rules forbid or hide are left out (every tool was exported: review userZ11, U11-7)
    if (process.env.HLDP_TOKEN) {
      const { cliCaller, withGateway } = await import('../with-gateway.js');
      const { listedSpecs } = await import('../../gateway/service/index.js');
      return withGateway(flags, io, async (gateway) => {
        const caller = cliCaller(gateway);
        const { index } = gateway.registry;
        // the specs lack an author's new tool not yet committed: said on stderr, as hldp scan and list say it
        warnIfUncommitted(index.source, await uncommittedDefinitions(gateway.config.repository.source, gateway.config.repository.ref), 'read', io);
        const { tools, names } = listedSpecs(index, gateway.sessions.view(undefined, caller), format);
        return printExport(flags, io, { format, commit: index.commit, tools, names, meta_tools: metaToolRoutes() });
      }, 'optional', 'none');
    }
    const { scanWithUncommitted } = await import('../open-registry.js');
    const { index, uncommitted } = await scanWithUncommitted(flags);
    warnIfUncommitted(index.source, uncommitted, 'read', io);
    return printExport(flags, io, exportTools(index, format));
  },
};

function printExport(flags: Flags, io: CommandIo, exported: ToolExport<ExportFormat>): number {
  if (flags.json) {
    writeJson(io, exported);
    return 0;
  }
  // without --json: exactly the array a request's `tools` takes; renamed tools are named on stderr
  writeJson(io, exported.tools);
  writeLines(
    io.stderr,
    Object.entries(exported.names)
      .filter(([name, registryName]) => name !== registryName)
      .map(([name, registryName]) => `renamed for ${exported.format}: '${registryName}' is exported as '${name}' (use --json for the table)`),
  );
  return 0;
}
