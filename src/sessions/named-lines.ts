import type { ToolDefinition } from '../core/index.js';
import { countChars, type BudgetLine } from './budget.js';
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

// a group folded to one line, from its members' lines (in index order): their names and markers
function groupLine(group: string, members: readonly BudgetLine[], groupDescriptions: Readonly<Record<string, string>>): BudgetLine {
  const first = members.slice(0, 3).map((member) => member.name).join(', ');
  const markers = [...new Set(members.flatMap((member) => member.markers))];
  return { name: `${group} (group of ${members.length}: ${first}, …)`, description: oneLine(groupDescriptions[group] ?? ''), markers };
}

/** A tool's line and its group: what a block's lines are worked out from (never the definition itself). */
interface Named {
  line: BudgetLine;
  group: string | undefined;
}

const namedOf = (tool: ToolDefinition): Named => ({ line: toolLine(tool), group: tool.group });

/**
 * A tool's line with the markers its caller's view gives it (the approval rules in force for that caller): the
 * description still read only when shown. The cached lines carry the tool's own markers, the same for everyone.
 */
function remarked(line: BudgetLine, markers: readonly string[]): BudgetLine {
  const { measured } = line;
  return {
    name: line.name,
    markers,
    get description() {
      return line.description;
    },
    ...(measured ? { measured: { headChars: countChars(`- ${line.name}${markers.map((marker) => ` ${marker}`).join('')}`), length: measured.length } } : {}),
  };
}

/** Tools by name and purpose; a group with many tools here becomes one line naming its first tools; `markersOf`: the caller's markers. */
export function namedLines(tools: readonly ToolDefinition[], groupDescriptions: Readonly<Record<string, string>>, markersOf?: (tool: ToolDefinition) => readonly string[]): BudgetLine[] {
  return linesOf(tools.map((tool) => (markersOf ? { line: remarkedIfOther(toolLine(tool), markersOf(tool)), group: tool.group } : namedOf(tool))), groupDescriptions);
}

function remarkedIfOther(line: BudgetLine, markers: readonly string[]): BudgetLine {
  return markers.length === line.markers.length && markers.every((marker, at) => marker === line.markers[at]) ? line : remarked(line, markers);
}

function linesOf(named: readonly Named[], groupDescriptions: Readonly<Record<string, string>>): BudgetLine[] {
  const byGroup = new Map<string, BudgetLine[]>();
  for (const { line, group } of named) {
    if (!group) continue;
    const members = byGroup.get(group);
    if (members) members.push(line);
    else byGroup.set(group, [line]);
  }
  const lines: BudgetLine[] = [];
  const folded = new Set<string>();
  for (const { line, group } of named) {
    const members = group ? byGroup.get(group)! : [];
    if (group && members.length >= FOLD_GROUP_AT) {
      if (folded.has(group)) continue;
      folded.add(group);
      lines.push(groupLine(group, members, groupDescriptions));
      continue;
    }
    lines.push(line);
  }
  return lines;
}

const NO_MARKERS: readonly string[] = Object.freeze([]);
const NO_MARKS: ReadonlyMap<number, readonly string[]> = new Map();

/**
 * A tool's line that reads its description from the tool when asked for, not held: an index's lines at 100,000 tools
 * held 18.6 MB of intents (and 14 MB of heads and lengths) for a block that shows ~1,100 of them (issue #18).
 */
class LineAt implements BudgetLine {
  readonly name: string;
  readonly markers: readonly string[];
  // numbers held in the line itself, not an object more per line
  private readonly headChars: number;
  private readonly length: number;

  constructor(
    tool: ToolDefinition,
    private readonly at: number,
    private readonly descriptionAt: (at: number) => string,
  ) {
    const line = toolLine(tool);
    this.name = line.name;
    this.markers = line.markers.length === 0 ? NO_MARKERS : line.markers;
    this.headChars = countChars(`- ${line.name}${line.markers.map((marker) => ` ${marker}`).join('')}`);
    this.length = countChars(line.description);
  }

  get measured(): { headChars: number; length: number } {
    return { headChars: this.headChars, length: this.length };
  }

  get description(): string {
    return this.descriptionAt(this.at);
  }
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
 * Built once per index (and group descriptions) from its tools read once, in order; it keeps each tool's line and
 * group, not the tools (a served index's definitions are made when read: issue #18). Gives exactly what
 * `namedLines` gives over the subset.
 */
export class IndexNamedLines {
  private readonly entries: Entry[] = [];
  private readonly named: Named[] = [];
  /** group → the positions of its tools */
  private readonly groups = new Map<string, number[]>();

  /** `descriptionAt`, the description of the tool at a position: the lines then hold none (see `LineAt`) */
  constructor(
    tools: Iterable<ToolDefinition>,
    private readonly groupDescriptions: Readonly<Record<string, string>>,
    descriptionAt?: (at: number) => string,
  ) {
    for (const tool of tools) {
      const at = this.named.length;
      this.named.push(descriptionAt ? { line: new LineAt(tool, at, descriptionAt), group: tool.group } : namedOf(tool));
      if (!tool.group) continue;
      const members = this.groups.get(tool.group);
      if (members) members.push(at);
      else this.groups.set(tool.group, [at]);
    }
    this.named.forEach(({ line, group }, at) => {
      const members = group ? this.groups.get(group)! : undefined;
      if (!members) this.entries.push({ at, line });
      else if (members.length < FOLD_GROUP_AT) this.entries.push({ at, line, group: group! });
      else if (members[0] === at) this.entries.push({ at, line: groupLine(group!, members.map((member) => this.named[member]!.line), groupDescriptions), group: group! });
    });
  }

  /**
   * The lines of every tool of the index but those at `excluded` (positions in index order), with `marks` (by position:
   * the markers the caller's view gives a tool, where they differ from its own) in place of those tools' markers.
   */
  linesWithout(excluded: readonly number[], marks: ReadonlyMap<number, readonly string[]> = NO_MARKS): BudgetLine[] {
    if (excluded.length === 0 && marks.size === 0) return this.entries.map((entry) => entry.line);
    const lineAt = (at: number): BudgetLine => {
      const markers = marks.get(at);
      return markers ? remarked(this.named[at]!.line, markers) : this.named[at]!.line;
    };
    if (excluded.length * 2 > this.named.length) {
      // most tools left out: the few left are quicker to work out from scratch
      const out = new Set(excluded);
      return linesOf(this.named.flatMap((named, at) => (out.has(at) ? [] : [{ line: lineAt(at), group: named.group }])), this.groupDescriptions);
    }
    const out = new Uint8Array(this.named.length);
    const affected = new Set<string>();
    for (const at of excluded) {
      out[at] = 1;
      const group = this.named[at]!.group;
      if (group) affected.add(group);
    }
    // a marked tool's group is worked out again too, its folded line naming the marked tool's markers
    for (const at of marks.keys()) {
      const group = this.named[at]?.group;
      if (group) affected.add(group);
    }
    const redone: Entry[] = [];
    for (const group of affected) {
      const leftAt = this.groups.get(group)!.filter((at) => !out[at]);
      const left = leftAt.map(lineAt);
      if (left.length >= FOLD_GROUP_AT) redone.push({ at: leftAt[0]!, line: groupLine(group, left, this.groupDescriptions) });
      else left.forEach((line, index) => redone.push({ at: leftAt[index]!, line }));
    }
    redone.sort((a, b) => a.at - b.at);
    const lines: BudgetLine[] = [];
    let next = 0;
    for (const entry of this.entries) {
      if (entry.group !== undefined ? affected.has(entry.group) : out[entry.at]) continue;
      while (next < redone.length && redone[next]!.at < entry.at) lines.push(redone[next++]!.line);
      lines.push(entry.group === undefined && marks.has(entry.at) ? lineAt(entry.at) : entry.line);
    }
    while (next < redone.length) lines.push(redone[next++]!.line);
    return lines;
  }
}
