import { once } from 'node:events';
import { eachTool, type ToolDefinition, type ToolIndex } from '../../core/index.js';
import type { approvalNeed } from '../../policy/index.js';
import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeLines, type Command, type CommandIo } from '../command.js';

/** `hldp list`: the index, one tool a line (or every definition with --json). */
export const listCommand: Command = {
  name: 'list',
  usage: `${REPOSITORY_USAGE} [--json]`,
  summary: 'list the registered tools',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const { scanWithUncommitted } = await import('../open-registry.js');
    const { index, uncommitted } = await scanWithUncommitted(flags);
    const { warnIfStale } = await import('../stale-index.js');
    warnIfStale(index, io);
    // as hldp scan says it (review userZ9, U9-9)
    const { warnIfUncommitted } = await import('../uncommitted-definitions.js');
    warnIfUncommitted(index.source, uncommitted, 'read', io);
    await writeToolList(io, index, flags.json === true, uncommitted);
    // files, not diagnostics: one file can hold several errors (review userU, F2)
    const failed = new Set(index.errors.map((error) => error.file)).size;
    if (!flags.json && failed) io.stderr.write(`${failed} definition(s) failed to load; run hldp scan to see them\n`);
    return 0;
  },
};

/** `hldp list`'s output for an index: one tool a line under a header, or `{commit, stale?, uncommitted?, tools}` as JSON; tools read one at a time. */
export async function writeToolList(io: CommandIo, index: ToolIndex, json: boolean, uncommitted: readonly string[] = []): Promise<void> {
  if (json) return writeToolsJson(io, index, uncommitted);
  // what the policies' approval rules make of each tool's calls, as the prompt block marks it (only with policies)
  const needOf = index.policies?.length ? (await import('../../policy/index.js')).approvalNeed : undefined;
  // one tool at a time, its line's parts kept (the widths need every name, executor and CONFIRM before the first line)
  const rows: Array<{ name: string; executor: string; confirm: string; rest: string }> = [];
  for (const tool of eachTool(index)) {
    rows.push({ name: tool.name, executor: tool.executor, confirm: confirmWord(tool, needOf?.(index, tool, undefined)), rest: `${tool.display} · ${tool.intent}` });
  }
  const width = rows.reduce((widest, row) => Math.max(widest, row.name.length), 4);
  const executorWidth = rows.reduce((widest, row) => Math.max(widest, row.executor.length), 8);
  const confirmWidth = rows.reduce((widest, row) => Math.max(widest, row.confirm.length), 7);
  writeLines(io.stdout, [
    `${'NAME'.padEnd(width)}  ${'EXECUTOR'.padEnd(executorWidth)}  ${'CONFIRM'.padEnd(confirmWidth)}  DISPLAY · INTENT`,
    ...rows.map((row) => `${row.name.padEnd(width)}  ${row.executor.padEnd(executorWidth)}  ${row.confirm.padEnd(confirmWidth)}  ${row.rest}`),
  ]);
}

/**
 * The CONFIRM column: `yes` where the caller confirms with a token, `approval` where a person decides, `?` after either
 * where a rule's `when` or `callers` decides (`approval?`) — what the policies' approval rules make of the tool's calls,
 * for any caller, as the prompt block's `[needs approval]` says it; the tool's own `require_confirm` where no rule names
 * it. It said `yes` for `require_confirm` alone, and a tool a policy sends to approval read like any other (review
 * userZ9, U9-10).
 */
function confirmWord(tool: ToolDefinition, need: ReturnType<typeof approvalNeed>): string {
  if (need === undefined) return tool.constraints.require_confirm ? 'yes' : 'no';
  if (need.kinds.size === 0) return 'no';
  const words = (['confirmation', 'approval'] as const).filter((kind) => need.kinds.has(kind)).map((kind) => (kind === 'confirmation' ? 'yes' : kind)).join('/');
  return need.sure ? words : `${words}?`;
}

// tools written to stdout at once
const TOOLS_PER_WRITE = 200;

/**
 * `{commit, stale?, uncommitted?, tools}` exactly as `writeJson` writes it, every definition whole, a few hundred at a time, each made from
 * the scan cache and let go once written: at 100,000 tools neither the list nor its JSON is held.
 */
async function writeToolsJson(io: CommandIo, index: ToolIndex, uncommitted: readonly string[]): Promise<void> {
  const write = async (text: string): Promise<void> => {
    if (!io.stdout.write(text)) await once(io.stdout, 'drain');
  };
  // a stale index says so as /healthz and GET /v1/tools do: the repository could not be read, this is the last one read
  // and a checkout's definitions edited since HEAD, which it does not hold, as POST /v1/scan lists them
  let text = `${JSON.stringify({ commit: index.commit, ...(index.stale ? { stale: index.stale } : {}), ...(uncommitted.length > 0 ? { uncommitted } : {}) }, null, 2).slice(0, -2)},\n  "tools": [`;
  let written = 0;
  for (const tool of eachTool(index)) {
    // a JSON string holds no raw line break: indenting each line indents the definition as a nested value
    text += `${written === 0 ? '' : ','}\n    ${JSON.stringify(tool, null, 2).replaceAll('\n', '\n    ')}`;
    if (++written % TOOLS_PER_WRITE === 0) {
      await write(text);
      text = '';
    }
  }
  await write(`${text}${written ? '\n  ]' : ']'}\n}\n`);
}
