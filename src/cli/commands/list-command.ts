import { JSON_OPTION, REPOSITORY_OPTIONS, writeJson, writeLines, type Command } from '../command.js';

/** `hldp list`: the index, one tool a line (or every definition with --json). */
export const listCommand: Command = {
  name: 'list',
  usage: '[--repo R] [--ref REF] [--json]',
  summary: 'list the registered tools',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { scanFromFlags } = await import('../open-registry.js');
    const index = await scanFromFlags(flags);
    if (flags.json) {
      writeJson(io, { commit: index.commit, tools: index.tools });
      return 0;
    }
    const width = Math.max(4, ...index.tools.map((tool) => tool.name.length));
    const executorWidth = Math.max(8, ...index.tools.map((tool) => tool.executor.length));
    writeLines(io.stdout, [
      `${'NAME'.padEnd(width)}  ${'EXECUTOR'.padEnd(executorWidth)}  CONFIRM  DISPLAY · INTENT`,
      ...index.tools.map(
        (tool) =>
          `${tool.name.padEnd(width)}  ${tool.executor.padEnd(executorWidth)}  ${(tool.constraints.require_confirm ? 'yes' : 'no').padEnd(7)}  ${tool.display} · ${tool.intent}`,
      ),
    ]);
    if (index.errors.length) io.stderr.write(`${index.errors.length} definition(s) failed to load; run hldp scan to see them\n`);
    return 0;
  },
};
