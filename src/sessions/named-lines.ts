import type { ToolDefinition } from '../core/index.js';
import type { BudgetLine } from './budget.js';
import { oneLine, toolMarkers } from './signatures.js';

/** A group with at least this many tools in the hidden-tools block is folded to one line. */
export const FOLD_GROUP_AT = 4;

// a definition never changes once scanned: its line is worked out once, whichever sessions name it
const toolLines = new WeakMap<ToolDefinition, BudgetLine>();

/** A tool by name and purpose, with its mode markers. */
export function toolLine(tool: ToolDefinition): BudgetLine {
  let line = toolLines.get(tool);
  if (!line) toolLines.set(tool, (line = { name: tool.name, description: oneLine(tool.intent), markers: toolMarkers(tool) }));
  return line;
}

function groupLine(group: string, members: readonly ToolDefinition[], groupDescriptions: Readonly<Record<string, string>>): BudgetLine {
  const first = members.slice(0, 3).map((member) => member.name).join(', ');
  const markers = [...new Set(members.flatMap((member) => toolLine(member).markers))];
  return { name: `${group} (group of ${members.length}: ${first}, …)`, description: oneLine(groupDescriptions[group] ?? ''), markers };
}

/** Tools by name and purpose; a group with many tools here becomes one line naming its first tools. */
export function namedLines(tools: readonly ToolDefinition[], groupDescriptions: Readonly<Record<string, string>>): BudgetLine[] {
  const byGroup = new Map<string, ToolDefinition[]>();
  for (const tool of tools) {
    if (!tool.group) continue;
    const members = byGroup.get(tool.group);
    if (members) members.push(tool);
    else byGroup.set(tool.group, [tool]);
  }
  const lines: BudgetLine[] = [];
  const folded = new Set<string>();
  for (const tool of tools) {
    const members = tool.group ? byGroup.get(tool.group)! : [];
    if (tool.group && members.length >= FOLD_GROUP_AT) {
      if (folded.has(tool.group)) continue;
      folded.add(tool.group);
      lines.push(groupLine(tool.group, members, groupDescriptions));
      continue;
    }
    lines.push(toolLine(tool));
  }
  return lines;
}

/** A line of the whole index's block, at the position (in index order) of its first tool. */
interface Entry {
  at: number;
  line: BudgetLine;
  /** the group the line stands for or belongs to */
  group?: string;
}

/**
 * `namedLines` of one index, for any of its subsets, from the lines of the whole index and the few tools a
 * session leaves out: a session names nearly every tool (all but its active toolsets' handful), so its lines
 * are the index's, less the tools left out and with only the groups those belong to worked out again.
 * Built once per index (and group descriptions); gives exactly what `namedLines` gives over the subset.
 */
export class IndexNamedLines {
  private readonly entries: Entry[] = [];
  private readonly groups = new Map<string, { tools: ToolDefinition[]; at: number[] }>();

  constructor(
    private readonly tools: readonly ToolDefinition[],
    private readonly groupDescriptions: Readonly<Record<string, string>>,
  ) {
    tools.forEach((tool, at) => {
      if (!tool.group) return;
      const members = this.groups.get(tool.group);
      if (members) {
        members.tools.push(tool);
        members.at.push(at);
      } else this.groups.set(tool.group, { tools: [tool], at: [at] });
    });
    tools.forEach((tool, at) => {
      const members = tool.group ? this.groups.get(tool.group)! : undefined;
      if (!members) this.entries.push({ at, line: toolLine(tool) });
      else if (members.tools.length < FOLD_GROUP_AT) this.entries.push({ at, line: toolLine(tool), group: tool.group! });
      else if (members.at[0] === at) this.entries.push({ at, line: groupLine(tool.group!, members.tools, groupDescriptions), group: tool.group! });
    });
  }

  /** The lines of every tool of the index but those at `excluded` (positions in index order). */
  linesWithout(excluded: readonly number[]): BudgetLine[] {
    if (excluded.length === 0) return this.entries.map((entry) => entry.line);
    if (excluded.length * 2 > this.tools.length) {
      // most tools left out: the few left are quicker to work out from scratch
      const out = new Set(excluded);
      return namedLines(this.tools.filter((_tool, at) => !out.has(at)), this.groupDescriptions);
    }
    const out = new Uint8Array(this.tools.length);
    const affected = new Set<string>();
    for (const at of excluded) {
      out[at] = 1;
      const group = this.tools[at]!.group;
      if (group) affected.add(group);
    }
    const redone: Entry[] = [];
    for (const group of affected) {
      const members = this.groups.get(group)!;
      const left: ToolDefinition[] = [];
      const leftAt: number[] = [];
      members.tools.forEach((tool, index) => {
        if (out[members.at[index]!]) return;
        left.push(tool);
        leftAt.push(members.at[index]!);
      });
      if (left.length >= FOLD_GROUP_AT) redone.push({ at: leftAt[0]!, line: groupLine(group, left, this.groupDescriptions) });
      else left.forEach((tool, index) => redone.push({ at: leftAt[index]!, line: toolLine(tool) }));
    }
    redone.sort((a, b) => a.at - b.at);
    const lines: BudgetLine[] = [];
    let next = 0;
    for (const entry of this.entries) {
      if (entry.group !== undefined ? affected.has(entry.group) : out[entry.at]) continue;
      while (next < redone.length && redone[next]!.at < entry.at) lines.push(redone[next++]!.line);
      lines.push(entry.line);
    }
    while (next < redone.length) lines.push(redone[next++]!.line);
    return lines;
  }
}
