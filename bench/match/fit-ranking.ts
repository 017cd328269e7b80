import type { Matcher, RankingParameters } from '../../src/matcher/index.js';
import type { BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';

/** One knob of the ranking and the values the search tries for it. */
interface Knob {
  name: string;
  values: number[];
  get: (parameters: RankingParameters) => number;
  set: (parameters: RankingParameters, value: number) => RankingParameters;
}

const SCALE = [0, 0.25, 0.5, 1, 2, 3, 4, 6, 8, 12];

// `describing` is the unit of the boosts and `stage1` the unit of the re-rank: both scores are relative
function boostKnob(name: 'naming' | 'details'): Knob {
  return {
    name: `boosts.${name}`,
    values: [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5],
    get: (p) => p.boosts[name],
    set: (p, value) => ({ ...p, boosts: { ...p.boosts, [name]: value } }),
  };
}

function rerankKnob(name: keyof RankingParameters['rerank']): Knob {
  return {
    name: `rerank.${name}`,
    values: SCALE,
    get: (p) => p.rerank[name],
    set: (p, value) => ({ ...p, rerank: { ...p.rerank, [name]: value } }),
  };
}

function bm25Knob(name: 'k' | 'b' | 'd', values: number[]): Knob {
  return { name: `bm25.${name}`, values, get: (p) => p.bm25[name], set: (p, value) => ({ ...p, bm25: { ...p.bm25, [name]: value } }) };
}

const KNOBS: Knob[] = [
  boostKnob('naming'),
  boostKnob('details'),
  bm25Knob('k', [0.5, 0.9, 1.2, 1.6, 2.2, 3, 4, 6, 9, 14, 20]),
  bm25Knob('b', [0, 0.1, 0.2, 0.4, 0.6, 0.75, 0.9, 1]),
  bm25Knob('d', [0, 0.25, 0.5, 1]),
  rerankKnob('coverage'),
  rerankKnob('plainCoverage'),
  rerankKnob('namingCoverage'),
  rerankKnob('describingCoverage'),
  rerankKnob('paramCoverage'),
  rerankKnob('nameShare'),
  rerankKnob('intentShare'),
  rerankKnob('namePhrase'),
  rerankKnob('intentPhrase'),
  rerankKnob('nameHead'),
  {
    // the cosine of word vectors (`src/matcher/similarity.ts`): re-orders the tools the words found
    name: 'similarity',
    values: [0, 0.5, 1, 2, 3, 4, 6, 8],
    get: (p) => p.similarity,
    set: (p, value) => ({ ...p, similarity: value }),
  },
  {
    // a tool with a parameter for the request's date (`src/matcher/dates.ts`): re-orders the tools the words found
    name: 'dates',
    values: [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3],
    get: (p) => p.dates,
    set: (p, value) => ({ ...p, dates: value }),
  },
  {
    name: 'valueWeight',
    values: [0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1],
    get: (p) => p.valueWeight,
    set: (p, value) => ({ ...p, valueWeight: value }),
  },
];

/** Pooled hit@1 and hit@3 over distinct names, averaged: the objective the ranking is fitted to. */
export function rankingObjective(matcher: Matcher, world: BenchWorld, queries: readonly BenchQuery[]): number {
  let hits1 = 0;
  let hits3 = 0;
  for (const query of queries) {
    const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    const names = [...new Set(matcher.explainIntent(query.text).ranked.map((e) => world.benchName.get(e.tool.name)!))];
    const rank = names.findIndex((name) => gold.has(name));
    if (rank === 0) hits1 += 1;
    if (rank >= 0 && rank < 3) hits3 += 1;
  }
  return (hits1 + hits3) / (2 * queries.length);
}

/** Coordinate ascent over the knobs (or only those named in `only`), one at a time, until a full round improves nothing. */
export function fitRanking(
  matcher: Matcher,
  world: BenchWorld,
  queries: readonly BenchQuery[],
  start: RankingParameters,
  log: (line: string) => void,
  only?: ReadonlySet<string>,
): RankingParameters {
  let best = start;
  let bestScore = rankingObjective(matcher.reconfigure({ ranking: best }), world, queries);
  log(`start ${bestScore.toFixed(4)}`);
  for (let round = 1; round <= 3; round += 1) {
    let improved = false;
    for (const knob of KNOBS.filter((knob) => only === undefined || only.has(knob.name))) {
      for (const value of knob.values) {
        if (value === knob.get(best)) continue;
        const trial = knob.set(best, value);
        const score = rankingObjective(matcher.reconfigure({ ranking: trial }), world, queries);
        if (score > bestScore + 1e-9) {
          best = trial;
          bestScore = score;
          improved = true;
        }
      }
      log(`round ${round} ${knob.name} = ${knob.get(best)} → ${bestScore.toFixed(4)}`);
    }
    if (!improved) break;
  }
  return best;
}
