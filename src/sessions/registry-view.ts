import { eachTool, findTool, type SkillDefinition, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../core/index.js';

/** Resolves a tool name or alias to its definition (the matcher's lookup, so calls and views agree). */
export type ToolResolver = (name: string) => ToolDefinition | undefined;

/**
 * One index seen through its toolsets, computed once per index: which tools each toolset holds, which
 * toolsets hold each tool, the groups, and the on-demand tools. Sessions share it; a rescan makes a new one.
 */
export class RegistryView {
  readonly toolsets = new Map<string, ToolsetDefinition>();
  /** toolset name → the tools it holds; absent for a toolset whose empty list means the whole registry */
  private readonly members = new Map<string, Set<string>>();
  /** tool name → the toolsets that name it (itself, an alias or its group) */
  private readonly holders = new Map<string, Set<string>>();
  /** toolsets whose empty list means the whole registry */
  readonly wholeRegistryToolsets = new Set<string>();
  private groupMap: Map<string, string[]> | undefined;
  readonly onDemand = new Set<string>();
  private readonly skills = new Map<string, SkillDefinition>();

  constructor(
    readonly index: ToolIndex,
    readonly resolve: ToolResolver,
    onDemand: readonly string[] = [],
  ) {
    for (const toolset of index.toolsets) {
      this.toolsets.set(toolset.name.toLowerCase(), toolset);
      if (toolset.tools.length === 0) {
        this.wholeRegistryToolsets.add(toolset.name);
        continue;
      }
      const held = new Set(this.expand(toolset.tools));
      this.members.set(toolset.name, held);
      for (const name of held) this.holders.set(name, (this.holders.get(name) ?? new Set()).add(toolset.name));
    }
    for (const name of this.expand(onDemand)) this.onDemand.add(name);
    for (const skill of index.skills) this.skills.set(skill.name.toLowerCase(), skill);
  }

  /**
   * Group name → the names of its tools, in index order. Made when first asked: it reads every tool (one at a time:
   * names, not definitions, are kept), and a call by name in a registry without toolsets never needs it (a warm start
   * makes each definition only when it is read).
   */
  private get groupNames(): ReadonlyMap<string, readonly string[]> {
    if (this.groupMap) return this.groupMap;
    const groups = new Map<string, string[]>();
    for (const tool of eachTool(this.index)) {
      if (!tool.group) continue;
      const members = groups.get(tool.group);
      if (members) members.push(tool.name);
      else groups.set(tool.group, [tool.name]);
    }
    this.groupMap = groups;
    return groups;
  }

  /** The tools of the group of that exact name, in index order; undefined when no tool is in it. */
  group(name: string): ToolDefinition[] | undefined {
    return this.groupNames.get(name)?.map((member) => findTool(this.index, member)!);
  }

  /**
   * What `tool_load` of a name loads: the tool of that name or alias, else the group of that name. A tool's name wins:
   * a definition's `group` is any pusher's to write, and `group: git-ops` on a new tool made `tool_load git-ops` load
   * the newcomer in place of git-ops (review Z6, Z6-3).
   */
  loadable(name: string): { group?: ToolDefinition[]; tools: ToolDefinition[] } {
    const named = this.resolve(name);
    if (named) return { tools: [named] };
    const group = this.group(name);
    return group ? { group, tools: group } : { tools: [] };
  }

  /** The tool of that exact name (never an alias). */
  tool(name: string): ToolDefinition | undefined {
    return findTool(this.index, name);
  }

  /** The toolset of that name, in any case. */
  toolset(name: string): ToolsetDefinition | undefined {
    return this.toolsets.get(name.toLowerCase());
  }

  /** The skill of that name, in any case. */
  skill(name: string): SkillDefinition | undefined {
    return this.skills.get(name.toLowerCase());
  }

  /** Whether the toolset holds the tool (a whole-registry toolset holds every tool). */
  holds(toolset: string, tool: string): boolean {
    return this.wholeRegistryToolsets.has(toolset) || (this.members.get(toolset)?.has(tool) ?? false);
  }

  /** The names of the tools the toolset holds; undefined for a whole-registry toolset (or none of that name). */
  membersOf(toolset: string): readonly string[] | undefined {
    const members = this.members.get(toolset);
    return members ? [...members] : undefined;
  }

  /** The toolsets that name the tool, by name order (not the whole-registry ones). */
  toolsetsNaming(tool: string): string[] {
    return [...(this.holders.get(tool) ?? [])].sort();
  }

  /** Tool names and groups (as toolsets and config write them) turned into the names of the tools they stand for. */
  expand(names: readonly string[]): string[] {
    const found: string[] = [];
    for (const name of names) {
      const group = this.groupNames.get(name);
      if (group) found.push(...group);
      const tool = this.resolve(name);
      if (tool) found.push(tool.name);
    }
    return found;
  }
}
