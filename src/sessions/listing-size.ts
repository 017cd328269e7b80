import { toolCount, toolsOf, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { mcpToolSpec } from '../export/index.js';
import { countChars } from './budget.js';
import { MAX_BUDGET_CHARS } from './prompt-block.js';

/** What a session with no toolset active lists, when its registry tools' specs pass the prompt budget. */
export interface WholeListing {
  /** the registry's tools */
  tools: number;
  /** characters of JSON of the specs read before the budget was passed: more than `budget`, not the whole listing */
  charsAtLeast: number;
  budget: number;
}

// a definition is read at a time, and reading stops once the budget is passed, or after this many: a 100,000-tool
// registry is neither made whole nor walked at a start for a warning (issue #18; a session's view walks every tool)
const MAX_READ = 1000;

/**
 * Whether `tools/list` of a session with no toolset active would list more than the prompt budget (seed 001: 16,000
 * characters) holds, in its registry tools' specs as MCP lists them: the tools read in the index's order, but those
 * `unlisted` or `reserved` (`sessions.on_demand`, `sessions.deny`), until the budget is passed. Access rules are not
 * asked (they are per principal). Seed 001 reads an empty active set as the whole registry, so such a session gets
 * every tool it may use: worth a warning where nothing narrows it.
 */
export function wholeListing(index: ToolIndex, reserved: (tool: ToolDefinition) => boolean, budget: number = MAX_BUDGET_CHARS): WholeListing | undefined {
  const sequence = toolsOf(index);
  const count = toolCount(index);
  let chars = 0;
  for (let at = 0; at < Math.min(count, MAX_READ) && chars <= budget; at++) {
    const tool = sequence.at(at)!;
    if (tool.unlisted === true || reserved(tool)) continue;
    chars += countChars(JSON.stringify(mcpToolSpec(tool, tool.name)));
  }
  return chars > budget ? { tools: count, charsAtLeast: chars, budget } : undefined;
}

/** The start warning for `listing` (`narrow`: how this surface's client starts a session with toolsets), worded the same by `hldp serve` and `hldp mcp`. */
export function wholeListingWarning(listing: WholeListing, narrow: string): string {
  return `a session with no toolset active lists every tool it may use (seed 001: no active toolset means the whole registry): the registry has ${listing.tools} tools, ` +
    `and their specs in tools/list take more than ${listing.budget} characters (the prompt budget); ${narrow}, or reserve tools and groups with sessions.on_demand ` +
    '(listed by name and purpose, loaded with tool_load), so that a model is not handed the whole registry';
}
