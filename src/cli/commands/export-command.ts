import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeJson, writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

/** `hldp export`: the tools as OpenAI, Anthropic or MCP specs, for agents that call the HTTP API instead of MCP. */
export const exportCommand: Command = {
  name: 'export',
  usage: `--format openai|anthropic|mcp ${REPOSITORY_USAGE} [--json]`,
  summary: "print the tools as function specs for an agent's request (--json adds the table from exported names back to registry names)",
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION, format: { type: 'string', short: 'f' } },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { exportTools, EXPORT_FORMATS } = await import('../../export/index.js');
    const format = EXPORT_FORMATS.find((known) => known === flags.format);
    if (!format) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}${typeof flags.format === 'string' ? `, not '${flags.format}'` : ''}`);
    const { scanWithUncommitted } = await import('../open-registry.js');
    const { index, uncommitted } = await scanWithUncommitted(flags);
    // the specs lack an author's new tool not yet committed: said on stderr, as hldp scan and list say it
    const { warnIfUncommitted } = await import('../uncommitted-definitions.js');
    warnIfUncommitted(index.source, uncommitted, 'read', io);
    const exported = exportTools(index, format);
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
        .map(([name, registryName]) => `renamed for ${format}: '${registryName}' is exported as '${name}' (use --json for the table)`),
    );
    return 0;
  },
};
