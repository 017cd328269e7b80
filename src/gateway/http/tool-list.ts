import type { ToolDefinition, ToolIndex } from '../../core/index.js';
import type { ToolListQuery } from './query-parameters.js';

/** A tool as the summary form lists it: what it is and how to find it, no schemas. */
export type ToolSummary = Pick<ToolDefinition, 'name' | 'display' | 'intent' | 'executor' | 'method' | 'aliases' | 'group'>;

/** One page of `GET /v1/tools`: the tools that pass the filters, from `offset`, at most `limit`. */
export function toolPage(index: ToolIndex, query: ToolListQuery): { total: number; next_offset: number | null; tools: Array<ToolDefinition | ToolSummary> } {
  const words = query.q?.toLowerCase().split(/\s+/).filter((word) => word !== '') ?? [];
  const matches = (tool: ToolDefinition): boolean => {
    if (query.group !== undefined && tool.group !== query.group) return false;
    if (words.length === 0) return true;
    const text = [tool.name, tool.display, tool.intent, tool.group ?? '', ...tool.aliases].join('\n').toLowerCase();
    return words.every((word) => text.includes(word));
  };
  const filtered = words.length === 0 && query.group === undefined ? index.tools : index.tools.filter(matches);
  const page = filtered.slice(query.offset, query.offset + query.limit);
  const next = query.offset + page.length;
  return {
    total: filtered.length,
    next_offset: next < filtered.length ? next : null,
    tools: query.summary ? page.map(summaryOf) : page,
  };
}

function summaryOf(tool: ToolDefinition): ToolSummary {
  const { name, display, intent, executor, method, aliases, group } = tool;
  return { name, display, intent, executor, method, aliases, ...(group !== undefined ? { group } : {}) };
}
