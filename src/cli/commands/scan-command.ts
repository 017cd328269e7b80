import { formatDiagnostic } from '../../core/index.js';
import { JSON_OPTION, REPOSITORY_OPTIONS, writeJson, writeLines, type Command } from '../command.js';

/** `hldp scan`: read every definition and print `{commit, tools, errors}`. */
export const scanCommand: Command = {
  name: 'scan',
  usage: '[--repo R] [--ref REF] [--json]',
  summary: 'scan the repository and print {commit, tools, toolsets, skills, errors}',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { scanFromFlags } = await import('../open-registry.js');
    const index = await scanFromFlags(flags);
    if (flags.json) {
      writeJson(io, {
        source: index.source,
        commit: index.commit,
        scanned_at: index.scanned_at,
        ...(index.stale ? { stale: index.stale } : {}),
        tools: index.tools.map((tool) => ({ name: tool.name, display: tool.display, executor: tool.executor, method: tool.method, path: tool.source.path })),
        toolsets: index.toolsets.map((toolset) => ({ name: toolset.name, description: toolset.description, tools: toolset.tools, path: toolset.source.path })),
        skills: index.skills.map((skill) => ({ name: skill.name, description: skill.description, ...(skill.toolset ? { toolset: skill.toolset } : {}), path: skill.source.path })),
        errors: index.errors,
        warnings: index.warnings,
      });
      return 0;
    }
    writeLines(io.stdout, [
      `source  ${index.source}`,
      `commit  ${index.commit}${index.stale ? `  (stale: ${index.stale.reason})` : ''}`,
      `tools   ${index.tools.length}${index.tools.length ? `: ${index.tools.slice(0, 20).map((tool) => tool.name).join(', ')}${index.tools.length > 20 ? ', …' : ''}` : ''}`,
      `toolsets ${index.toolsets.length}${index.toolsets.length ? `: ${index.toolsets.map((toolset) => toolset.name).join(', ')}` : ''}`,
      `skills  ${index.skills.length}${index.skills.length ? `: ${index.skills.map((skill) => skill.name).join(', ')}` : ''}`,
      `errors  ${index.errors.length}`,
    ]);
    writeLines(io.stderr, [...index.errors, ...index.warnings].map(formatDiagnostic));
    return 0;
  },
};
