import type { AccessGate, Role } from './access.js';

/** The kinds of entry one repository (and so one index) holds, each in a folder of its own. */
export const ENTRY_KINDS = ['tool', 'toolset', 'skill', 'policy'] as const;

/** `tool` (tools/<name>/TOOL.hdlp), `toolset` (toolsets/<name>/TOOLSET.hdlp), `skill` (skills/<name>/SKILL.md) or `policy` (policies/<name>.hdlp). */
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * Where each kind lives: the top-level folder and the file inside each entry's folder; a `flat` kind is one
 * file per entry directly in the top-level folder, named `<entry><file>` (policies/ops.hdlp).
 */
export const ENTRY_LAYOUT: Readonly<Record<EntryKind, { folder: string; file: string; flat?: true }>> = {
  tool: { folder: 'tools', file: 'TOOL.hdlp' },
  toolset: { folder: 'toolsets', file: 'TOOLSET.hdlp' },
  skill: { folder: 'skills', file: 'SKILL.md' },
  policy: { folder: 'policies', file: '.hdlp', flat: true },
};

/** The path of an entry's definition inside the repository, e.g. `toolsets/repo/TOOLSET.hdlp`, `policies/ops.hdlp`. */
export function entryPath(kind: EntryKind, folder: string): string {
  const { folder: top, file, flat } = ENTRY_LAYOUT[kind];
  return flat ? `${top}/${folder}${file}` : `${top}/${folder}/${file}`;
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

/** A place in a definition file, 1-based: where a rule is written, so that a decision can name it. */
export interface FilePosition {
  line: number;
  column: number;
}

/** An access rule of a policy: the tools and groups it covers may be seen and run only by callers who pass its gate. */
export interface PolicyAccessRule extends AccessGate {
  /** tool names, aliases and groups; `*` covers every tool */
  tools: string[];
  /** said to a refused caller instead of the gate in words */
  reason?: string;
  at: FilePosition;
}

/**
 * What one param must be for an approval rule to match: a path glob (picomatch), a linear-time regular
 * expression (RE2, found anywhere in the value, as JSON Schema's `pattern`), or one of some exact values.
 */
export interface ParamCondition {
  glob?: string | string[];
  regex?: string;
  equals?: string | number | boolean | Array<string | number | boolean>;
}

/** What an approval rule decides for the calls it matches. */
export type PolicyDecisionKind = 'allow' | 'approve' | 'deny';

/** An approval rule of a policy (seed 002): the first rule that matches a call decides it. */
export interface ApprovalRule {
  /** tool names, aliases and groups; `*` covers every tool */
  tools: string[];
  /** every named param must meet its condition */
  when?: Record<string, ParamCondition>;
  /** only calls by these callers match (absent: every caller) */
  callers?: AccessGate;
  decision: PolicyDecisionKind;
  /** the words a denied caller, or an approver, reads */
  reason?: string;
  /** `approve`: whether the caller may approve its own request (default false) */
  self_approval?: boolean;
  /** `approve`: who may decide (default: role approver, and admin) */
  approvers?: AccessGate;
  /** `approve`: the human at an MCP client that declares elicitation may decide in the client */
  elicit?: boolean;
  /** `approve`: how long the request waits for a decision, in ms (default: the gateway's confirmation_ttl_ms) */
  expires_in_ms?: number;
  at: FilePosition;
  /** where each `when` key is written (absent in a policy cached before it was kept: the rule's place is said instead) */
  when_at?: Array<FilePosition & { param: string }>;
}

/** A policy file (policies/<name>.hdlp): access rules and approval rules over tools and groups (seeds 002, 003). */
export interface PolicyDefinition {
  name: string;
  description?: string;
  access: PolicyAccessRule[];
  approval: ApprovalRule[];
  author: string;
  why: string;
  source: EntrySource;
}
