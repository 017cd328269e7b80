import { eachTool, toolCount, toolsOf, type ToolDefinition, type ToolIndex } from '../../core/index.js';
import type { ToolListQuery } from '../../request-checks/index.js';
import { onDemandTest } from '../../sessions/index.js';
import type { Gateway } from '../service/index.js';

/** A tool as the summary form lists it: what it is and how to find it, no schemas. */
export type ToolSummary = Pick<ToolDefinition, 'name' | 'display' | 'intent' | 'executor' | 'method' | 'aliases' | 'group'>;

/** `on_demand: true` on a listed tool that `sessions.on_demand` reserves (seed 001): a client's menu says it comes by a toolset or tool_load. */
export type Marked<T> = T & { on_demand?: true };

/**
 * Marks the tools `sessions.on_demand` reserves, as a session's lattice reads the list (review userZ11, U11-18: the
 * catalog did not say which tools a session lists only once a toolset or tool_load brings them).
 */
export function onDemandMark(gateway: Pick<Gateway, 'config' | 'registry'>): <T extends Pick<ToolDefinition, 'name' | 'group'>>(tool: T) => Marked<T> {
  const { matcher } = gateway.registry;
  const reserved = onDemandTest(gateway.config.sessions.onDemand, (name) => {
    const found = matcher.lookup(name);
    return found.found ? found.tool : undefined;
  });
  return (tool) => (reserved(tool) ? { ...tool, on_demand: true } : tool);
}

/**
 * One page of `GET /v1/tools`: the tools that pass the filters, from `offset`, at most `limit`. The index's tools are
 * read one at a time and only the page's are held (of an index served from the scan cache, reading `tools` made and
 * kept all 100,000 definitions): unfiltered, only the page's tools are made.
 */
export function toolPage(
  index: ToolIndex,
  query: ToolListQuery,
  mark: (tool: ToolDefinition | ToolSummary) => Marked<ToolDefinition | ToolSummary> = (tool) => tool,
): { total: number; next_offset: number | null; tools: Array<Marked<ToolDefinition | ToolSummary>> } {
  const words = query.q?.toLowerCase().split(/\s+/).filter((word) => word !== '') ?? [];
  const matches = (tool: ToolDefinition): boolean => {
    if (query.group !== undefined && tool.group !== query.group) return false;
    if (words.length === 0) return true;
    const text = [tool.name, tool.display, tool.intent, tool.group ?? '', ...tool.aliases].join('\n').toLowerCase();
    return words.every((word) => text.includes(word));
  };
  const end = query.offset + query.limit;
  const page: ToolDefinition[] = [];
  let total: number;
  if (words.length === 0 && query.group === undefined) {
    total = toolCount(index);
    const tools = toolsOf(index);
    for (let position = query.offset; position < Math.min(end, total); position++) page.push(tools.at(position)!);
  } else {
    total = 0;
    for (const tool of eachTool(index)) {
      if (!matches(tool)) continue;
      if (total >= query.offset && total < end) page.push(tool);
      total += 1;
    }
  }
  const next = query.offset + page.length;
  return {
    total,
    next_offset: next < total ? next : null,
    tools: (query.summary ? page.map(summaryOf) : page).map(mark),
  };
}

function summaryOf(tool: ToolDefinition): ToolSummary {
  const { name, display, intent, executor, method, aliases, group } = tool;
  return { name, display, intent, executor, method, aliases, ...(group !== undefined ? { group } : {}) };
}
