import { once } from 'node:events';
import { byPlace, eachTool, formatDiagnostic, toolCount, type ToolIndex } from '../../core/index.js';
import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeLines, type Command, type CommandIo } from '../command.js';
import { lastRead } from '../stale-index.js';
import { terminalSafe } from '../terminal-safe.js';

/** `hldp scan`: read every definition and print `{commit, tools, errors}`. */
export const scanCommand: Command = {
  name: 'scan',
  usage: `${REPOSITORY_USAGE} [--json]`,
  summary: 'scan the repository and print {commit, tools, toolsets, skills, errors}; exit 2 when it could not be read (the last index read is printed, marked stale)',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { scanWithUncommitted } = await import('../open-registry.js');
    const { index, uncommitted } = await scanWithUncommitted(flags);
    // what the author edited and did not commit is not in it: said, or "my new tool is not there" has no explanation (review userZ9, U9-9)
    const { warnIfUncommitted } = await import('../uncommitted-definitions.js');
    warnIfUncommitted(index.source, uncommitted, 'read', io);
    // the command asked to read the repository did not: a CI step `git push && hldp scan` must fail, as POST /v1/scan's 502 does (review R, R16)
    const unread = (): number => {
      if (!index.stale) return 0;
      io.stderr.write(`hldp: ${terminalSafe(`${index.source} could not be read (${index.stale.reason}): what is shown is ${lastRead(index, index.stale)}`)}\n`);
      return 2;
    };
    if (flags.json) {
      await writeIndexJson(io, index, uncommitted);
      return unread();
    }
    const count = toolCount(index);
    const first: string[] = [];
    for (const tool of eachTool(index)) {
      if (first.length === 20) break;
      first.push(tool.name);
    }
    writeLines(io.stdout, [
      `source  ${index.source}`,
      `commit  ${index.commit}${index.stale ? `  (stale: ${index.stale.reason})` : ''}`,
      `tools   ${count}${count ? `: ${first.join(', ')}${count > 20 ? ', …' : ''}` : ''}`,
      `toolsets ${index.toolsets.length}${index.toolsets.length ? `: ${index.toolsets.map((toolset) => toolset.name).join(', ')}` : ''}`,
      `skills  ${index.skills.length}${index.skills.length ? `: ${index.skills.map((skill) => skill.name).join(', ')}` : ''}`,
      `errors  ${index.errors.length}`,
    ]);
    // by file, each file's in the order of its lines, as hldp validate gives them (review userZ5, F3)
    writeLines(io.stderr, [...index.errors, ...index.warnings].sort(byPlace).map((diagnostic) => terminalSafe(formatDiagnostic(diagnostic))));
    return unread();
  },
};

// tools written to stdout at once
const TOOLS_PER_WRITE = 500;

/**
 * `{source, commit, scanned_at, stale?, uncommitted?, tools, toolsets, skills, errors, warnings}` as `writeJson` writes it, the tools a few
 * hundred at a time, each made from the scan cache and let go once written: at 100,000 tools the list is not held.
 */
async function writeIndexJson(io: CommandIo, index: ToolIndex, uncommitted: readonly string[]): Promise<void> {
  const write = async (text: string): Promise<void> => {
    if (!io.stdout.write(text)) await once(io.stdout, 'drain');
  };
  const head = JSON.stringify({ source: index.source, commit: index.commit, scanned_at: index.scanned_at, ...(index.stale ? { stale: index.stale } : {}), ...(uncommitted.length > 0 ? { uncommitted } : {}) }, null, 2);
  let text = `${head.slice(0, -2)},\n  "tools": [`;
  let written = 0;
  for (const tool of eachTool(index)) {
    const summary = { name: tool.name, display: tool.display, executor: tool.executor, method: tool.method, path: tool.source.path };
    text += `${written === 0 ? '' : ','}\n    ${JSON.stringify(summary, null, 2).replaceAll('\n', '\n    ')}`;
    if (++written % TOOLS_PER_WRITE === 0) {
      await write(text);
      text = '';
    }
  }
  const rest = JSON.stringify({
    toolsets: index.toolsets.map((toolset) => ({ name: toolset.name, description: toolset.description, tools: toolset.tools, path: toolset.source.path })),
    skills: index.skills.map((skill) => ({ name: skill.name, description: skill.description, ...(skill.toolset ? { toolset: skill.toolset } : {}), path: skill.source.path })),
    errors: [...index.errors].sort(byPlace),
    warnings: index.warnings,
  }, null, 2);
  await write(`${text}${written ? '\n  ]' : ']'},\n${rest.slice(2)}\n`);
}
