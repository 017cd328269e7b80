/** The kinds of entry one repository (and so one index) holds, each in a folder of its own. */
export const ENTRY_KINDS = ['tool', 'toolset', 'skill'] as const;

/** `tool` (tools/<name>/TOOL.hdlp), `toolset` (toolsets/<name>/TOOLSET.hdlp) or `skill` (skills/<name>/SKILL.md). */
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** Where each kind lives: the top-level folder and the file inside each entry's folder. */
export const ENTRY_LAYOUT: Readonly<Record<EntryKind, { folder: string; file: string }>> = {
  tool: { folder: 'tools', file: 'TOOL.hdlp' },
  toolset: { folder: 'toolsets', file: 'TOOLSET.hdlp' },
  skill: { folder: 'skills', file: 'SKILL.md' },
};

/** The path of an entry's definition inside the repository, e.g. `toolsets/repo/TOOLSET.hdlp`. */
export function entryPath(kind: EntryKind, folder: string): string {
  const { folder: top, file } = ENTRY_LAYOUT[kind];
  return `${top}/${folder}/${file}`;
}

/** Where a toolset or skill came from in the repository. */
export interface EntrySource {
  path: string;
  oid: string;
}

/**
 * A named set of tools and groups (seeds 000, 001): what an agent enables to narrow what it sees.
 * An empty `tools` list means the whole registry, never nothing.
 */
export interface ToolsetDefinition {
  name: string;
  /** one line: what kind of work the set is for; the catalogue shows it */
  description: string;
  /** tool names and groups, as written; empty means every tool */
  tools: string[];
  /** the reply on activation, kept in the prompt block while the set is active */
  hint?: string;
  author: string;
  why: string;
  source: EntrySource;
}

/** Knowledge, not hands (seed 000 §9; the Agent Skills convention): indexed by name and trigger, its body read on demand. */
export interface SkillDefinition {
  name: string;
  /** the trigger line: when to read this skill */
  description: string;
  /** the toolset this skill leads to: while it is active, the skill leaves the index (seed 000 §6) */
  toolset?: string;
  /** the Markdown after the front matter */
  body: string;
  /** Agent Skills' optional fields, kept as written */
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  'allowed-tools'?: string;
  source: EntrySource;
}
