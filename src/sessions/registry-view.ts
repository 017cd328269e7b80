import { findTool, type SkillDefinition, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../core/index.js';

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
  private groupMap: Map<string, ToolDefinition[]> | undefined;
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
      const held = new Set(this.expand(toolset.tools).map((tool) => tool.name));
      this.members.set(toolset.name, held);
      for (const name of held) this.holders.set(name, (this.holders.get(name) ?? new Set()).add(toolset.name));
    }
    for (const tool of this.expand(onDemand)) this.onDemand.add(tool.name);
    for (const skill of index.skills) this.skills.set(skill.name.toLowerCase(), skill);
  }

  /**
   * Group name → its tools, in index order. Made when first asked: it reads every tool, and a call by name in a
   * registry without toolsets never needs it (a warm start makes each definition only when it is read).
   */
  get groups(): ReadonlyMap<string, ToolDefinition[]> {
    if (this.groupMap) return this.groupMap;
    const groups = new Map<string, ToolDefinition[]>();
    for (const tool of this.index.tools) {
      if (!tool.group) continue;
      const members = groups.get(tool.group);
      if (members) members.push(tool);
      else groups.set(tool.group, [tool]);
    }
    this.groupMap = groups;
    return groups;
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

  /** The toolsets that name the tool, by name order (not the whole-registry ones). */
  toolsetsNaming(tool: string): string[] {
    return [...(this.holders.get(tool) ?? [])].sort();
  }

  /** The tools a toolset holds, in index order (every tool for a whole-registry toolset). */
  toolsOf(toolset: string): ToolDefinition[] {
    const held = this.members.get(toolset);
    return held ? this.index.tools.filter((tool) => held.has(tool.name)) : [...this.index.tools];
  }

  /** Tool names and groups (as toolsets and config write them) turned into tools. */
  expand(names: readonly string[]): ToolDefinition[] {
    const found: ToolDefinition[] = [];
    for (const name of names) {
      const group = this.groups.get(name);
      if (group) found.push(...group);
      const tool = this.resolve(name);
      if (tool) found.push(tool);
    }
    return found;
  }
}
