import MiniSearch from 'minisearch';
import { compareToolNames, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';
import { createMatcher, loadLexicon, NOTHING_MATCHES, type MatcherOptions } from '../../src/matcher/index.js';

// quality is measured with the Chinese-English dictionary read, as a server has it a second after it met Chinese
await loadLexicon();

/** What a system answers for one request: tool names best first, and (when it decides) whether one fits. */
export interface SearchAnswer {
  names: string[];
  /** the system's own found decision; absent when it only has a score to threshold */
  found?: boolean;
  /** how sure a found answer is, for systems that say */
  confidence?: 'high' | 'low';
  /** how many names the answer offers the agent (its candidates); absent: the first three */
  offered?: number;
  /**
   * A score whose order is the system's decision: the baseline's top BM25 score; for the matcher,
   * the evidence below the "nothing matches" line (0..1) and 1 + the probability above it.
   */
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
      const explanation = matcher.explainIntent(text);
      const { found, confidence, ranked, evidence } = explanation;
      const answer = matcher.matchIntent(text);
      const signal = found ? 1 + (ranked[0]?.probability ?? 0) : Math.min(1, evidence / NOTHING_MATCHES) * 0.999;
      const words = ranked.map((entry) => entry.tool.name);
      if (answer.found && answer.stage === 'vector') {
        // the words found nothing and the vector stage offers its nearest (low): they come first, the words' order after
        // (the signal stays the words': the AUROC is of their found/not-found evidence)
        const offered = answer.candidates.map((candidate) => candidate.name);
        return { names: [...offered, ...words.filter((name) => !offered.includes(name))], found: true, confidence: 'low', offered: offered.length, signal };
      }
      return {
        names: words,
        found,
        ...(confidence ? { confidence } : {}),
        offered: answer.found ? answer.candidates.length : 0,
        signal,
      };
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
