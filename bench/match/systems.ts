import MiniSearch from 'minisearch';
import { compareToolNames, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';
import { createMatcher, type MatcherOptions } from '../../src/matcher/index.js';

/** What a system answers for one request: tool names best first, and (when it decides) whether one fits. */
export interface SearchAnswer {
  names: string[];
  /** the system's own found decision; absent when it only has a score to threshold */
  found?: boolean;
  /** a score to threshold into a found decision (the baseline's top BM25 score) */
  signal: number;
}

/** A search system built over a set of tools. */
export type SearchSystem = (tools: ToolDefinition[]) => (text: string) => SearchAnswer;

/** An index over `tools` in the scanner's order (by name), as every bench script builds its matchers on. */
export function asIndex(tools: readonly ToolDefinition[], commit = 'bench'): ToolIndex {
  return { source: 'bench', commit, tools: [...tools].sort(compareToolNames), toolsets: [], skills: [], errors: [], warnings: [], scanned_at: '' };
}

/** brush-holder's matcher, optionally with other parameters than the fitted ones. */
export function matcherSystem(options: MatcherOptions = {}): SearchSystem {
  return (tools) => {
    const matcher = createMatcher(asIndex(tools), options);
    return (text) => {
      const { found, ranked } = matcher.explainIntent(text);
      return { names: ranked.map((entry) => entry.tool.name), found, signal: ranked[0]?.probability ?? 0 };
    };
  };
}

/** Plain minisearch BM25 with default options over name, description and parameter text. */
export const baselineSystem: SearchSystem = (tools) => {
  const search = new MiniSearch<{ id: string; name: string; description: string; params: string }>({
    fields: ['name', 'description', 'params'],
  });
  search.addAll(
    tools.map((tool) => ({
      id: tool.name,
      name: tool.name,
      description: tool.intent,
      params: paramText(tool),
    })),
  );
  return (text) => {
    const results = search.search(text);
    return { names: results.map((result) => String(result.id)), signal: results[0]?.score ?? 0 };
  };
};

function paramText(tool: ToolDefinition): string {
  const properties = (tool.params_schema['properties'] ?? {}) as Record<string, { description?: string }>;
  return Object.entries(properties)
    .map(([name, property]) => `${name} ${property.description ?? ''}`)
    .join('\n');
}
