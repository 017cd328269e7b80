import type { ToolIndex } from '../core/index.js';
import { mcpToolSpec } from '../export/index.js';
import { countChars } from './budget.js';
import { MAX_BUDGET_CHARS } from './prompt-block.js';
import { toolsAtPositions, type SessionView } from './session-view.js';

/** What a session with no toolset active lists, when its registry tools' specs pass the prompt budget. */
export interface WholeListing {
  /** registry tools listed (the meta-tools aside) */
  tools: number;
  /** characters of JSON of the specs read before the budget was passed: at least `budget`, not the whole listing */
  charsAtLeast: number;
  budget: number;
}

// a definition is read at a time, and reading stops once the budget is passed: a 100,000-tool registry is not
// made whole at a start for a warning (issue #18)
const STEP = 16;

/**
 * Whether `tools/list` of a session with no toolset active (its view: `view`) would list more than the prompt budget
 * (seed 001: 16,000 characters) holds, in its registry tools' specs as MCP lists them. Seed 001 reads an empty active
 * set as the whole registry, so such a session gets every tool it may use: worth a warning where nothing narrows it.
 */
export function wholeListing(index: ToolIndex, view: Pick<SessionView, 'positions'>, budget: number = MAX_BUDGET_CHARS): WholeListing | undefined {
  const positions = view.positions.visible;
  let chars = 0;
  for (let at = 0; at < positions.length && chars <= budget; at += STEP) {
    for (const tool of toolsAtPositions(index, positions.slice(at, at + STEP))) chars += countChars(JSON.stringify(mcpToolSpec(tool, tool.name)));
  }
  return chars > budget ? { tools: positions.length, charsAtLeast: chars, budget } : undefined;
}

/** The start warning for `listing` (`narrow`: how this surface's client starts a session with toolsets), worded the same by `hldp serve` and `hldp mcp`. */
export function wholeListingWarning(listing: WholeListing, narrow: string): string {
  return `a session with no toolset active lists every tool it may use (seed 001: no active toolset means the whole registry): here ${listing.tools} tools, ` +
    `more than ${listing.budget} characters of specs (the prompt budget) in tools/list; ${narrow}, or reserve tools and groups with sessions.on_demand ` +
    '(listed by name and purpose, loaded with tool_load), so that a model is not handed the whole registry';
}
