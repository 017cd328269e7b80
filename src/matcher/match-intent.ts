import { compressSchema, DEFAULT_LIMIT, isMatchLimit, limitRefusal, MAX_LIMIT, type Candidate, type MatchConfidence, type MatchResult, type NearMiss, type ToolDefinition } from '../core/index.js';
import type { Calibration } from './calibration.js';
import { contestedBy } from './contested.js';
import { applyContext, type MatchContext } from './context.js';
import { decisionFeatures, fitProbability, NOTHING_MATCHES, strongMatch } from './decision.js';
import { matchedFields } from './features.js';
import { rankTools, type QueryWord, type RankedTool, type ToolFeatures } from './rank.js';
import type { DecisionFeature, DecisionModel, RankingParameters } from './ranking-parameters.js';
import type { SearchIndex } from './search-index.js';
import { missingToolSuggestion } from './suggestion.js';
import { RELATED_WORDS } from './thesaurus.js';
import { MAX_VECTOR_STAGE_TOOLS, meaningAgrees, vectorStage } from './vector-stage.js';

// the one rule of how many candidates an answer holds (the spec's 1-3): core's, which every surface states
export { DEFAULT_LIMIT, MAX_LIMIT };
/** How many of the best-ranked tools `explainIntent` shows (for debugging, benchmarks, and the order the model stage lists tools in): more than an answer offers. */
export const EXPLAINED_TOOLS = 10;

// a found: false answer names at most this many weakly related tools, never the catalogue
const MAX_NEAR_MISSES = 3;
// "nothing matches" looks at as many tools as an answer shows by default: the re-rank orders them
// by how well they fit, which a tool matching one rare word of a long request need not win
const EVIDENCE_DEPTH = DEFAULT_LIMIT;

/**
 * What an answer made while the Chinese-English dictionary was still being read says (it is read in a
 * worker thread, ~1 s, when a process meets its first Chinese request or, for a registry with Chinese
 * examples, when a server starts): no request waits for it, so such a request is matched by its words as
 * written, without their English senses.
 */
export const LEXICON_LOADING =
  'the Chinese-English dictionary was still being read: the Chinese words were matched only as written, not by their English senses; ask again in a second for the full answer';

/** One ranked tool with the evidence behind its place. */
export interface ExplainedTool {
  tool: ToolDefinition;
  score: number;
  /** the decision model's probability that this tool fits the request */
  probability: number;
  features: ToolFeatures;
  /** which fields matched which request words, e.g. `intent: 提交, 记录` */
  matched: string[];
}

/** The reasoning behind an intent's answer: the best-ranked tools (at most `EXPLAINED_TOOLS`) and the decision. */
export interface IntentExplanation {
  /** whether anything in the registry matches part of the request */
  found: boolean;
  /** for a found answer, whether the best tool passes this registry's cut (`calibration.threshold`) */
  confidence: MatchConfidence | undefined;
  /** the most evidence any of the first `EVIDENCE_DEPTH` tools has (below `NOTHING_MATCHES`: nothing matches) */
  evidence: number;
  /** what the decision saw of the best tool (all zero when nothing matched) */
  decision: Record<DecisionFeature, number>;
  /** where this registry's line between confident and weak answers lies */
  calibration: Calibration;
  ranked: ExplainedTool[];
  /** set when the request has Chinese words the dictionary, still being read, could not gloss (`LEXICON_LOADING`) */
  incomplete?: string;
}

/** The engine an intent runs through: one index, its ranking parameters, its decision model and the registry's calibration. */
export interface IntentEngine {
  index: SearchIndex;
  ranking: RankingParameters;
  decision: DecisionModel;
  calibration: Calibration;
  /** the most tools a registry may have for the vector stage to run (`MAX_VECTOR_STAGE_TOOLS`; tests lower it) */
  vectorStageTools?: number;
}

/** Ranks the tools for an intent (with context, if any) and decides; explains the best `count` of them. */
export function explainIntent(
  engine: IntentEngine,
  intent: string,
  count: number = EXPLAINED_TOOLS,
  context?: MatchContext,
): IntentExplanation {
  return explainRanked(engine, intent, count, context).explanation;
}

// explainIntent, and the request's words and language, which the vector stage reads
function explainRanked(
  engine: IntentEngine,
  intent: string,
  count: number,
  context: MatchContext | undefined,
): { explanation: IntentExplanation; words: QueryWord[]; foreign: boolean; nearMiss: boolean; tools: RankedTool[]; cosines?: Float64Array } {
  const ranking = rankTools(engine.index, engine.ranking, intent);
  const ranked = applyContext(engine.index.tools, ranking.ranked, context);
  // evidence is gathered only for what an answer can show
  const explained = ranked.slice(0, count).map((entry, position) => explain(engine, ranking.words, ranked, entry, position));
  const evidence = Math.max(0, ...byWords(ranked).slice(0, EVIDENCE_DEPTH).map((entry) => entry.features.evidence));
  const found = evidence >= NOTHING_MATCHES;
  const best = explained[0];
  const pending = ranking.words.some((word) => word.glosses.pending === true);
  const incomplete = pending ? { incomplete: LEXICON_LOADING } : {};
  // high only on a strong match (userZ7 F6: more than one word of the request, or half of its content, and not only its
  // values) whose words were all read (a Chinese word without its English senses is not: F9)
  const strong = best !== undefined && !pending && strongMatch(best.features);
  const confidence: MatchConfidence | undefined = !found || best === undefined ? undefined : strong && best.probability >= engine.calibration.threshold ? 'high' : 'low';
  const explanation: IntentExplanation = { found, confidence, evidence: round(evidence), decision: decisionFeatures(ranked), calibration: engine.calibration, ranked: explained, ...incomplete };
  // a near miss: one of the three tools the words rank first (not those meaning brought up) has a word of the request
  const nearMiss = ranked.filter((entry) => entry.meaning !== true).slice(0, MAX_NEAR_MISSES).some((entry) => entry.features.matchedWords > 0);
  return { explanation, words: ranking.words, foreign: ranking.foreign, nearMiss, tools: ranked, ...(ranking.cosines ? { cosines: ranking.cosines } : {}) };
}

/**
 * The answer to an intent: 1..limit candidates, best first, with how confident the match is; or, when the words
 * find nothing, the tools nearest in meaning where the nearest stands out from the registry (`vectorStage`: at most 3,
 * `confidence: "low"`, `stage: "vector"`), or, where they find only near misses, the first of them when meaning agrees
 * (`hybridAnswer`, the same way); or, only when none of these finds anything, `found: false` with a suggestion and
 * near misses.
 */
export function matchIntent(engine: IntentEngine, intent: string, limit: number = DEFAULT_LIMIT, context?: MatchContext): MatchResult {
  const wanted = checkedLimit(limit);
  const { explanation, words, foreign, nearMiss, tools, cosines } = explainRanked(engine, intent, Math.max(wanted, MAX_NEAR_MISSES), context);
  const { found, confidence, ranked, incomplete } = explanation;
  const unfinished = incomplete === undefined ? {} : { incomplete };
  // every stage offers at most `limit`: the words' stage answered up to 10 where the others stopped at 3 (review U11-25)
  const offered = wanted;
  if (!found || confidence === undefined) {
    const hybrid = nearMiss && cosines !== undefined ? hybridAnswer(engine, offered, ranked, tools, cosines) : undefined;
    if (hybrid !== undefined) return { found: true, confidence: 'low', stage: 'vector', candidates: hybrid, ...unfinished };
    // the words found nothing, not even a near miss: meaning may offer the tools nearest it, weakly, where the nearest
    // stands out. Where a word of the request is in a tool (a near miss), the words' weak lead is left to the agent
    // and the model stage: offered before it, the nearest in meaning pushed the right near miss out of the first three
    // (杀掉占用8080端口的进程: shell-exec, third near miss) or came before it (fais un appel GET: http-request)
    const meaning = nearMiss
      ? undefined
      : vectorStage(engine.index, words, foreign, offered, engine.vectorStageTools, cosines);
    if (meaning !== undefined) {
      const candidates = meaning.positions.map((position, at) => {
        const cosine = round(meaning.cosines[at]!);
        return toCandidate({ tool: engine.index.tools.at(position)!, score: cosine, matched: [`meaning: cosine ${cosine}`] });
      });
      return { found: true, confidence: 'low', stage: 'vector', candidates, ...unfinished };
    }
    const related = foreign || cosines === undefined ? undefined : thesaurusAnswer(engine, intent, offered, context, cosines);
    if (related !== undefined) return { found: true, confidence: 'low', stage: 'vector', candidates: related, ...unfinished };
    const near: NearMiss[] = ranked
      .filter((entry) => entry.features.matchedWords > 0)
      .slice(0, MAX_NEAR_MISSES)
      .map(({ tool, score }) => ({ name: tool.name, display: tool.display, score }));
    // "write the tool" is not said on words that were not all read: the agent is told to ask again
    const suggestion = incomplete === undefined ? missingToolSuggestion(intent) : `${incomplete}; only then, if still nothing fits: ${missingToolSuggestion(intent)}`;
    return { found: false, suggestion, near, ...unfinished };
  }
  const threshold = engine.calibration.threshold;
  // a confident first tool that takes the next one's own requests (review Z6, Z6-2) is told, and made weak: the agent asks
  const contested = confidence === 'high' ? contestedBy(engine, ranked[0]!.tool, ranked.slice(1).filter((entry) => entry.features.evidence >= NOTHING_MATCHES).map((entry) => entry.tool)) : [];
  const sure = contested.length ? 'low' : confidence;
  // a confident answer offers the others only when they would be confident on their own; a weak one
  // offers every tool that matches part of the request, for the agent to choose from
  const chosen: Candidate[] = [];
  ranked.slice(0, wanted).forEach((entry, position) => {
    const offered = position === 0 || (sure === 'high' ? entry.probability >= threshold : entry.features.evidence >= NOTHING_MATCHES);
    if (offered) chosen.push(rankedCandidate(entry, tools[position]!, cosines));
  });
  return { found: true, confidence: sure, stage: 'lexical', candidates: chosen, ...unfinished, ...(contested.length ? { contested } : {}) };
}

// A ranked tool as a candidate; one meaning brought up (it has none of the request's words) says its cosine.
function rankedCandidate(entry: ExplainedTool, ranked: RankedTool, cosines: Float64Array | undefined): Candidate {
  if (ranked.meaning !== true || cosines === undefined) return toCandidate(entry);
  const cosine = round(cosines[ranked.position]!);
  return toCandidate({ tool: entry.tool, score: cosine, matched: [`meaning: cosine ${cosine}`] });
}

// A found: false with a near miss, in a registry where the hybrid first stage ran (`cosines`): where the words' first
// near miss is also meaning's nearest, and the two together are unlikely by chance (`meaningAgrees`), the ranking's
// first `count` are offered, low, that tool first: the other near misses stay beside it (offering the nearest in meaning
// alone pushed them out: vec18). Undefined: the words' found: false stands.
function hybridAnswer(
  engine: IntentEngine,
  count: number,
  ranked: readonly ExplainedTool[],
  tools: readonly RankedTool[],
  cosines: Float64Array,
): Candidate[] | undefined {
  if (engine.index.records.length > (engine.vectorStageTools ?? MAX_VECTOR_STAGE_TOOLS)) return undefined;
  const first = byWords(tools).find((entry) => entry.meaning !== true && entry.features.matchedWords > 0);
  if (first === undefined || !meaningAgrees(cosines, first.position)) return undefined;
  // the agreed tool first, then the ranking's others in their order (it is among the explained: words and meaning rank it high)
  const order = ranked.map((_, at) => at);
  const agreed = order.findIndex((at) => tools[at]!.position === first.position);
  if (agreed < 0) return undefined;
  order.unshift(...order.splice(agreed, 1));
  return order.slice(0, count).map((at) => rankedCandidate(ranked[at]!, tools[at]!, cosines));
}

// A found: false that neither meaning alone nor the words' near miss answered, in a registry where the hybrid first
// stage ran (`cosines`, at most `MAX_HYBRID_TOOLS`): the request read again with each English word's related words in
// WordNet as its senses (`thesaurusGlosses`: snow → precipitation, hire → employ), and the first tool those find (by
// the words' order) offered as the words' near miss is (`hybridAnswer`) — only where it is also meaning's nearest and
// the two together are unlikely by chance (`meaningAgrees`, the vector stage's level). Undefined: the found: false stands.
function thesaurusAnswer(
  engine: IntentEngine,
  intent: string,
  count: number,
  context: MatchContext | undefined,
  cosines: Float64Array,
): Candidate[] | undefined {
  const { index } = engine;
  if (index.records.length > (engine.vectorStageTools ?? MAX_VECTOR_STAGE_TOOLS) || index.records.length < 3) return undefined;
  const ranking = rankTools(index, engine.ranking, intent, true);
  const related = ranking.words.filter((word) => word.glosses.senses.length > 0);
  if (related.length === 0) return undefined;
  const tools = applyContext(index.tools, ranking.ranked, context);
  const first = byWords(tools).find((entry) => entry.meaning !== true && entry.features.matchedWords > 0);
  if (first === undefined || !meaningAgrees(cosines, first.position)) return undefined;
  const order = tools.slice(0, Math.max(count, MAX_NEAR_MISSES));
  const place = order.findIndex((entry) => entry.position === first.position);
  if (place < 0) order.unshift(first);
  else order.unshift(...order.splice(place, 1));
  return order.slice(0, count).map((entry) => {
    const candidate = rankedCandidate(explain(engine, ranking.words, tools, entry, 0), entry, cosines);
    const bridged = entry.meaning === true ? [] : relatedFound(index, entry.position, related);
    return bridged.length === 0 ? candidate : { ...candidate, matched: [...candidate.matched, `${RELATED_WORDS}${bridged.join(', ')}`] };
  });
}

// Which of the request's words a tool has only through a related word, and which: `snow → precipit` (index terms).
function relatedFound(index: SearchIndex, position: number, words: readonly QueryWord[]): string[] {
  const record = index.records.at(position)!;
  const found: string[] = [];
  for (const word of words) {
    if (record.fieldsOf(word.terms[0]!) !== undefined) continue;
    const sense = word.glosses.senses.find((terms) => record.fieldsOf(terms[0]!) !== undefined);
    if (sense !== undefined) found.push(`${word.word} → ${sense[0]}`);
  }
  return found;
}

// The ranking in the order of the words alone: the word vectors re-order the tools the words found, but whether
// anything matches stays the words' judgement over their own best (a tool near in meaning that shares no word
// with the request neither makes it answerable nor, ranked first, hides the one that does).
function byWords(ranked: readonly RankedTool[]): readonly RankedTool[] {
  if (ranked.every((entry) => entry.wordsScore === entry.score)) return ranked;
  return [...ranked].sort((a, b) => b.wordsScore - a.wordsScore || a.position - b.position);
}

/** A caller's limit, an integer from 1 to `MAX_LIMIT`; anything else is refused (RangeError), never cut: each surface refuses it first, in the same words. */
export function checkedLimit(limit: number): number {
  if (!isMatchLimit(limit)) throw new RangeError(limitRefusal('limit', limit));
  return limit;
}

function explain(
  engine: IntentEngine,
  words: QueryWord[],
  ranked: RankedTool[],
  entry: RankedTool,
  position: number,
): ExplainedTool {
  const tool = engine.index.tools.at(entry.position)!;
  const probability = fitProbability(engine.decision, decisionFeatures(ranked, position));
  const matched = matchedFields(engine.index, entry.position, words);
  return { tool, score: round(entry.score), probability: round(probability), features: entry.features, matched };
}

/**
 * A ranked tool as a candidate of an answer. Its params schema is shrunk as `tools/list` and exports shrink it (over
 * 5,000 bytes of JSON, `compressSchema`), saying `schema_shrunk`: an answer goes into an agent's context, and one
 * definition's 800 KB schema went whole into every `tool_find` that named it (review Z8, Z8-2). Calls are still
 * validated against the whole schema.
 */
export function toCandidate({ tool, score, matched }: Pick<ExplainedTool, 'tool' | 'score' | 'matched'>): Candidate {
  const schema = compressSchema(tool.params_schema);
  return {
    name: tool.name,
    display: tool.display,
    intent: tool.intent,
    score,
    matched,
    params_schema: schema,
    ...(schema === tool.params_schema ? {} : { schema_shrunk: true as const }),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
