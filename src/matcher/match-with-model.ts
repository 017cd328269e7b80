import { findTool, type Candidate, type MatchResult } from '../core/index.js';
import { withBrokenMatches } from './broken-matches.js';
import type { Matcher, MatchIntentOptions } from './create-matcher.js';
import { checkedLimit, DEFAULT_LIMIT, toCandidate } from './match-intent.js';
import type { ModelAsker, ModelStage } from './model-stage.js';

/**
 * Seed 001's `tool_find`: the matcher's answer (the words', or where they found nothing the vector stage's), and only
 * when it is not confident (`found: false`, or confidence low: a vector answer always is) and a model stage is
 * configured, the tools the model names for the request among those `asker` may be offered, added to the words' (never
 * in place of them: review Z8, Z8-1). A model answer of none (or of no tool the asker may use), a timeout or an error
 * leave the lexical answer as it was; a model not asked for the asker's rate or the stage's concurrency
 * leaves it too, saying so in `incomplete`. An answer still `found: false` or `low` names the tools that would fit but
 * whose definition is broken (`broken`), so that they are fixed rather than written again (review userZ, Z8).
 */
export async function matchWithModel(matcher: Matcher, stage: ModelStage | undefined, intent: string, options: MatchIntentOptions = {}, asker: ModelAsker = {}): Promise<MatchResult> {
  return withBrokenMatches(await answerOf(matcher, stage, intent, options, asker), matcher.index, intent);
}

async function answerOf(matcher: Matcher, stage: ModelStage | undefined, intent: string, options: MatchIntentOptions, asker: ModelAsker): Promise<MatchResult> {
  const lexical = matcher.matchIntent(intent, options);
  if (stage === undefined || (lexical.found && lexical.confidence === 'high') || intent.trim() === '') return lexical;
  const limit = checkedLimit(options.limit ?? DEFAULT_LIMIT);
  const { ranked } = matcher.explainIntent(intent, options.context);
  const answer = await stage.name(intent, matcher.index, limit, ranked.map((entry) => entry.tool), asker);
  if (!answer.ok && answer.reason === 'limited') {
    return { ...lexical, incomplete: lexical.incomplete === undefined ? answer.message : `${lexical.incomplete}; ${answer.message}` };
  }
  // the stage takes only what the asker may be offered; checked again here, as a stage is an interface
  const names = answer.ok ? answer.names.filter((name) => asker.mayOffer === undefined || asker.mayOffer(name)) : [];
  if (names.length === 0) return lexical;
  // the model adds to what the words found, never takes from it (review Z8, Z8-1): a pushed definition that tells the
  // model to choose it must not make the reviewed tools the words found vanish. The words' candidates the model named
  // too come first (in the model's order), then the words' others as they ranked them, then the tools only the model
  // named, each marked `stage: "model"`
  const mark = `model: ${stage.model}`;
  const words = lexical.found ? lexical.candidates : [];
  const wordNames = new Set(words.map((candidate) => candidate.name));
  const both = names.filter((name) => wordNames.has(name)).map((name) => words.find((candidate) => candidate.name === name)!);
  const byName = new Map(ranked.map((entry) => [entry.tool.name, entry]));
  const modelOnly = names.filter((name) => !wordNames.has(name)).map((name): Candidate => {
    const entry = byName.get(name);
    const tool = entry?.tool ?? findTool(matcher.index, name)!;
    return { ...toCandidate({ tool, score: entry?.score ?? 0, matched: [...(entry?.matched ?? []), mark] }), stage: 'model' };
  });
  const candidates = [
    ...both.map((candidate) => ({ ...candidate, matched: [...candidate.matched, mark] })),
    ...words.filter((candidate) => !names.includes(candidate.name)),
    ...modelOnly,
  ];
  // the model's pick is a judgement, not evidence: confident only where the words agree on the same tool
  const agrees = lexical.found && lexical.stage === 'lexical' && lexical.candidates[0]?.name === names[0];
  // what the words' answer said beside its candidates (a contest, an unfinished dictionary) stays said
  const beside = lexical.found ? lexical : lexical.incomplete === undefined ? {} : { incomplete: lexical.incomplete };
  return { ...beside, found: true, confidence: agrees ? 'high' : 'low', stage: 'model', candidates };
}
