import { findTool, type MatchResult } from '../core/index.js';
import type { Matcher, MatchIntentOptions } from './create-matcher.js';
import { clampLimit, DEFAULT_LIMIT, toCandidate } from './match-intent.js';
import type { ModelStage } from './model-stage.js';

/**
 * Seed 001's `tool_find`: the lexical answer, and only when it is not confident (`found: false`, or
 * confidence low) and a model stage is configured, the tools the model names for the request. A
 * model answer of none, a timeout or an error leave the lexical answer as it was.
 */
export async function matchWithModel(matcher: Matcher, stage: ModelStage | undefined, intent: string, options: MatchIntentOptions = {}): Promise<MatchResult> {
  const lexical = matcher.matchIntent(intent, options);
  if (stage === undefined || (lexical.found && lexical.confidence === 'high') || intent.trim() === '') return lexical;
  const limit = clampLimit(options.limit ?? DEFAULT_LIMIT);
  const { ranked } = matcher.explainIntent(intent, options.context);
  const answer = await stage.name(intent, matcher.index, limit, ranked.map((entry) => entry.tool));
  if (!answer.ok || answer.names.length === 0) return lexical;
  const byName = new Map(ranked.map((entry) => [entry.tool.name, entry]));
  const candidates = answer.names.map((name) => {
    const entry = byName.get(name);
    const tool = entry?.tool ?? findTool(matcher.index, name)!;
    return toCandidate({ tool, score: entry?.score ?? 0, matched: [...(entry?.matched ?? []), `model: ${stage.model}`] });
  });
  // the model's pick is a judgement, not evidence: confident only where the words agree on the same tool
  const agrees = lexical.found && lexical.candidates[0]?.name === answer.names[0];
  return { found: true, confidence: agrees ? 'high' : 'low', stage: 'model', candidates };
}
