import type { Contest, ToolDefinition } from '../core/index.js';
import { analyzeWords } from './analyze.js';
import type { Calibration } from './calibration.js';
import { decisionFeatures, fitProbability, NOTHING_MATCHES } from './decision.js';
import { rankTools } from './rank.js';
import type { DecisionModel, RankingParameters } from './ranking-parameters.js';
import type { SearchIndex } from './search-index.js';

/** What `contestedBy` asks through: one registry's search index and parameters. */
export interface ContestEngine {
  index: SearchIndex;
  ranking: RankingParameters;
  decision: DecisionModel;
  calibration: Calibration;
}

// the other candidates a confident first one is checked against (the next two: what an agent would see beside it)
const RIVALS = 2;
// a rival's own texts asked at most: its examples first, then its aliases of two words or more
const TEXTS_PER_RIVAL = 8;
// pairs remembered per calibration (one per search index), then forgotten all at once
const MAX_REMEMBERED = 10_000;

// per calibration (a new one is measured whenever the search index changes): `first\nrival` → the rival's text the first takes, or null
const remembered = new WeakMap<Calibration, Map<string, string | null>>();

/**
 * Whether the first candidate of a confident answer takes another candidate's own requests (review Z6, Z6-2): each of
 * the next `RIVALS` tools' examples and aliases (at most `TEXTS_PER_RIVAL`) is asked of the registry, and where one
 * answers the first tool first, confidently, the answer is contested: `{tool: first, of: rival, text}`. It is the
 * relation `hldp validate` warns as INTENT_OVERLAP, asked only of the pairs an answer meets and remembered per
 * search index, so a request pays for a pair once (up to 16 rankings).
 */
export function contestedBy(engine: ContestEngine, first: ToolDefinition, rivals: readonly ToolDefinition[]): Contest[] {
  let memo = remembered.get(engine.calibration);
  if (memo === undefined || memo.size > MAX_REMEMBERED) {
    memo = new Map();
    remembered.set(engine.calibration, memo);
  }
  const contests: Contest[] = [];
  for (const rival of rivals.slice(0, RIVALS)) {
    if (rival.name === first.name) continue;
    const key = `${first.name}\n${rival.name}`;
    let text = memo.get(key);
    if (text === undefined) {
      text = takenText(engine, first, rival) ?? null;
      memo.set(key, text);
    }
    if (text !== null) contests.push({ tool: first.name, of: rival.name, text });
  }
  return contests;
}

// the first of the rival's own texts that the registry answers with `first`, confidently
function takenText(engine: ContestEngine, first: ToolDefinition, rival: ToolDefinition): string | undefined {
  const texts = [...rival.examples, ...rival.aliases.filter((alias) => analyzeWords(alias, 2).length >= 2)].slice(0, TEXTS_PER_RIVAL);
  for (const text of texts) {
    const { ranked } = rankTools(engine.index, engine.ranking, text);
    const best = ranked[0];
    if (best === undefined || engine.index.tools.at(best.position)?.name !== first.name) continue;
    if (best.features.evidence < NOTHING_MATCHES) continue;
    if (fitProbability(engine.decision, decisionFeatures(ranked)) >= engine.calibration.threshold) return text;
  }
  return undefined;
}
