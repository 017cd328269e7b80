import { eachTool, runToEnd, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { analyzeWords } from './analyze.js';
import type { IntentExplanation } from './match-intent.js';

/**
 * One tool's own example or alias that, asked as a request of the whole registry, now ranks another tool first with
 * `confidence: "high"` (review Z6, Z6-2): a definition copying a reviewed tool's wording takes that tool's requests.
 */
export interface IntentOverlap {
  /** the example or alias asked */
  text: string;
  kind: 'example' | 'alias';
  /** the tool it belongs to */
  of: ToolDefinition;
  /** the tool that now answers it first */
  taker: ToolDefinition;
}

/**
 * The most texts (examples and aliases of two words or more) asked: each is a full match (a ranking of the registry),
 * so a registry beyond this (a generated one of thousands of tools) is not checked, and the caller says so.
 */
export const MAX_OVERLAP_TEXTS = 4000;

/** What asks one request: `Matcher.explainIntent`. */
export type Explain = (intent: string) => IntentExplanation;

/** Every tool's own examples and aliases (of two words or more) asked of the registry; those another tool takes, once per text. */
export function intentOverlaps(index: ToolIndex, explain: Explain): IntentOverlap[] {
  return runToEnd(intentOverlapSteps(index, explain));
}

/** The texts `intentOverlaps` would ask (to bound it before asking any). */
export function overlapTextCount(index: ToolIndex): number {
  let count = 0;
  for (const tool of eachTool(index)) count += ownTexts(tool).length;
  return count;
}

/** `intentOverlaps`, stopping after each text asked. */
export function* intentOverlapSteps(index: ToolIndex, explain: Explain): Generator<void, IntentOverlap[], void> {
  const found: IntentOverlap[] = [];
  for (const tool of eachTool(index)) {
    for (const { text, kind } of ownTexts(tool)) {
      yield;
      const answer = explain(text);
      const first = answer.ranked[0]?.tool;
      // only a confident answer is taken: a weak one is offered for the agent to choose from, and the tool is among them
      if (!answer.found || answer.confidence !== 'high' || first === undefined || first.name === tool.name) continue;
      found.push({ text, kind, of: tool, taker: first });
    }
  }
  return found;
}

// each example, and each alias of two words or more (a one-word alias is a name, as the calibration reads it), once
function ownTexts(tool: ToolDefinition): Array<{ text: string; kind: 'example' | 'alias' }> {
  const seen = new Set<string>();
  const texts: Array<{ text: string; kind: 'example' | 'alias' }> = [];
  const add = (text: string, kind: 'example' | 'alias'): void => {
    if (seen.has(text)) return;
    seen.add(text);
    texts.push({ text, kind });
  };
  for (const text of tool.examples) add(text, 'example');
  for (const text of tool.aliases) if (analyzeWords(text, 2).length >= 2) add(text, 'alias');
  return texts;
}
