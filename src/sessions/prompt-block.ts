import type { SkillDefinition, ToolDefinition, ToolsetDefinition } from '../core/index.js';
import { countChars, fitToBudget, type BudgetLine, type BudgetSection, type FittedBlock } from './budget.js';
import { namedLines } from './named-lines.js';
import { oneLine, signatureLine } from './signatures.js';
import type { ActiveToolset } from './session-state.js';

/** Seed 001: the catalogue, the hidden-tools block and the skill index share 2% of the model's window... */
export const WINDOW_SHARE = 0.02;
/** ...and never more than this many characters. */
export const MAX_BUDGET_CHARS = 16_000;
/** Characters per token assumed when the budget is given as a window in tokens. */
export const CHARS_PER_TOKEN = 4;
export { FOLD_GROUP_AT } from './named-lines.js';

/** The characters the budgeted sections may take: 2% of `windowTokens` (at 4 characters a token), or `chars`, capped at 16,000. */
export function promptBudget(options: { windowTokens?: number; chars?: number }): number {
  const asked = options.chars ?? (options.windowTokens === undefined ? MAX_BUDGET_CHARS : Math.floor(options.windowTokens * WINDOW_SHARE * CHARS_PER_TOKEN));
  return Math.max(0, Math.min(MAX_BUDGET_CHARS, asked));
}

/** A core meta-tool as the block shows it. */
export interface CoreToolLine {
  signature: string;
  description: string;
}

/** Everything the block is rendered from: one session's state, already decided by `decideVisibility`. */
export interface PromptInput {
  core: readonly CoreToolLine[];
  toolsets: readonly ToolsetDefinition[];
  active: readonly ActiveToolset[];
  /** active toolsets the registry no longer serves, each with what the session is told of it */
  gone?: ReadonlyMap<string, string>;
  /** tools listed with their arguments (the view's visible tools) */
  visible: readonly ToolDefinition[];
  /** tools listed by name and purpose (reserved; and, with no toolset active, the visible ones too) */
  named: readonly ToolDefinition[];
  skills: readonly SkillDefinition[];
  groupDescriptions?: Readonly<Record<string, string>>;
  budget: number;
  /** `visible` and `named` already rendered (a caller that renders the same view again keeps them) */
  rendered?: RenderedTools;
}

/** The per-tool lines of a block: the signatures of the visible tools and the lines of the named ones. */
export interface RenderedTools {
  signatures: readonly string[];
  named: readonly BudgetLine[];
}

/** Renders the per-tool lines, the part of a block that grows with the registry. */
export function renderTools(visible: readonly ToolDefinition[], named: readonly ToolDefinition[], groupDescriptions: Readonly<Record<string, string>> = {}, markersOf?: (tool: ToolDefinition) => readonly string[]): RenderedTools {
  return { signatures: visible.map((tool) => `- ${signatureLine(tool, tool.name, markersOf?.(tool))}`), named: namedLines(named, groupDescriptions, markersOf) };
}

/** The block, and what the budget cost. */
export interface PromptBlock {
  text: string;
  chars: number;
  budget: { chars: number; used: number };
  /** descriptions shortened, characters cut from them, and the lines left out (tools, groups, toolsets, skills) */
  dropped: { descriptions: number; description_chars: number; lines: number; names: string[] };
}

/**
 * The prompt block of seeds 000 §3 and 001, in order: core meta-tools; the toolset catalogue; the active
 * toolsets' tools as one-line signatures (and their hints); "Active toolsets: …"; the other tools by name and
 * purpose, large groups folded; the skill index. Sections 2, 5 and 6 share the budget (`fitToBudget`).
 */
export function renderPromptBlock(input: PromptInput): PromptBlock {
  const rendered = input.rendered ?? renderTools(input.visible, input.named, input.groupDescriptions);
  const activeNames = new Set(input.active.map((toolset) => toolset.name));
  const scoped = input.active.length > 0;
  const fixedTop = [
    'Core tools (always available):',
    ...input.core.map((tool) => `- ${tool.signature} — ${tool.description}`),
  ].join('\n');
  const catalogue: BudgetSection = {
    header: 'Toolsets (enable one with toolset):',
    dropRank: 2,
    lines: input.toolsets.map((toolset) => {
      const active = input.active.find((entry) => entry.name === toolset.name);
      const markers = active ? [active.scope === 'turn' ? '[active this turn]' : '[active]'] : [];
      return { name: toolset.name, description: oneLine(toolset.description), markers };
    }),
  };
  const middle: string[] = [];
  if (scoped) {
    middle.push('Tools of the active toolsets:', ...rendered.signatures);
    for (const toolset of input.toolsets) if (activeNames.has(toolset.name) && toolset.hint) middle.push(`Hint (${toolset.name}): ${toolset.hint.trim()}`);
  } else {
    middle.push('No toolset is active: every tool below can be called; enable a toolset (or tool_load a tool) to see its arguments.');
  }
  middle.push(`Active toolsets: ${scoped ? input.active.map((toolset) => toolset.name).join(', ') : 'none'}`);
  // a toolset a rescan took away is said plainly: "Active toolsets: ops" over an empty list read as a ghost (review userX, X2)
  for (const message of input.gone?.values() ?? []) middle.push(message);
  const hidden: BudgetSection = {
    header: scoped ? 'Other tools (name and purpose; tool_load a name or group first):' : 'Tools (name and purpose):',
    dropRank: 0,
    lines: rendered.named,
  };
  const skills: BudgetSection = {
    header: 'Skills (read one with read_skill):',
    dropRank: 1,
    lines: input.skills.map((skill) => ({ name: skill.name, description: oneLine(skill.description), markers: [] })),
  };
  const fitted = fitToBudget([catalogue, hidden, skills], input.budget);
  return assemble(fixedTop, middle.join('\n'), fitted, input.budget);
}

function assemble(top: string, middle: string, fitted: FittedBlock, budget: number): PromptBlock {
  // the fixed middle (active tools, hints, active toolsets) sits between the catalogue and the other budgeted sections
  const [catalogue = '', ...rest] = fitted.sections;
  const trailer = fitted.dropped.length ? `(${fitted.dropped.length} more not shown for space: tool_find finds tools by what they do)` : '';
  const text = [top, catalogue, middle, ...rest, trailer].filter((part) => part !== '').join('\n');
  return {
    text,
    chars: countChars(text),
    budget: { chars: budget, used: fitted.chars },
    dropped: { descriptions: fitted.shortened, description_chars: fitted.cut_chars, lines: fitted.dropped.length, names: fitted.dropped.map((line) => line.name) },
  };
}
