// What each part of the ranking is worth: `npx tsx bench/match/ablate.ts [--data FILE] [--decision]`
// prints pooled hit@1 / hit@3 on both splits for the fitted parameters and for variants that drop
// one part; with --decision also the found/not-found accuracy of a decision refitted (on the even
// split) for each variant.
import { parseArgs } from 'node:util';
import { compareToolNames } from '../../src/core/index.js';
import { createMatcher, FITTED_RANKING, type RankingParameters } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData } from './bench-data.js';
import { decisionAccuracy } from './decision-curve.js';
import { fitDecision } from './fit-decision.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';
import { asIndex } from './systems.js';

const F = FITTED_RANKING;
const zero = (...names: Array<keyof RankingParameters['rerank']>): RankingParameters => ({
  ...F,
  rerank: { ...F.rerank, ...Object.fromEntries(names.map((name) => [name, 0])) },
});

const ALL_VARIANTS: Array<[string, RankingParameters]> = [
  ['fitted', F],
  ['no re-rank (first stage only)', zero(...(Object.keys(F.rerank).filter((name) => name !== 'stage1') as Array<keyof RankingParameters['rerank']>))],
  ['equal boosts, minisearch BM25 defaults k 1.2 b 0.7 d 0.5', { ...F, boosts: { naming: 1, describing: 1, details: 1 }, bm25: { k: 1.2, b: 0.7, d: 0.5 } }],
  ['values weigh as much as other words', { ...F, valueWeight: 1 }],
  ['values weigh half', { ...F, valueWeight: 0.5 }],
  ['no phrase features', zero('namePhrase', 'intentPhrase')],
  ['no name-head feature', zero('nameHead')],
  ['postings budget 200', { ...F, postingsBudget: 200 }],
  ['postings budget 300', { ...F, postingsBudget: 300 }],
  ['postings budget unlimited', { ...F, postingsBudget: Number.MAX_SAFE_INTEGER }],
  ['at most 8 terms', { ...F, maxTerms: 8 }],
  ['terms unlimited', { ...F, maxTerms: Number.MAX_SAFE_INTEGER }],
  ['re-rank depth 30', { ...F, depth: 30 }],
  ['re-rank depth 50', { ...F, depth: 50 }],
];

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: DEFAULT_DATA },
    decision: { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
// --only PART runs the variants whose label contains PART (and the fitted parameters)
const VARIANTS = ALL_VARIANTS.filter(([label]) => label === 'fitted' || label.includes(values.only ?? ''));
const data = await readBenchData(values.data!);
const { world } = await prepareWorld(data);
const tools = [...world.toolsById.values()].sort(compareToolNames);
const base = createMatcher(asIndex(tools));
const withGold = data.queries.filter((query) => query.gold.length > 0);
const round = (value: number): number => Math.round(value * 1000) / 1000;
const report: Record<string, Record<string, Record<string, number>>> = {};
for (const [label, ranking] of VARIANTS) {
  const matcher = base.reconfigure({ ranking });
  const splits = { tuning_even: { n: 0, hit1: 0, hit3: 0 }, held_out_odd: { n: 0, hit1: 0, hit3: 0 } };
  for (const query of withGold) {
    const split = isTuningQuery(query) ? splits.tuning_even : splits.held_out_odd;
    const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    const names = [...new Set(matcher.explainIntent(query.text).ranked.map((e) => world.benchName.get(e.tool.name)!))];
    const rank = names.findIndex((name) => gold.has(name));
    split.n += 1;
    if (rank === 0) split.hit1 += 1;
    if (rank >= 0 && rank < 3) split.hit3 += 1;
  }
  report[label] = Object.fromEntries(
    Object.entries(splits).map(([split, s]) => [split, { hit1: round(s.hit1 / s.n), hit3: round(s.hit3 / s.n) }]),
  );
  if (values.decision) {
    const decision = fitDecision(world, data.queries.filter(isTuningQuery), ranking);
    const accuracy = decisionAccuracy(world, data.queries, ranking, decision);
    report[label]!['tuning_even']!['decision'] = accuracy.tuning_even;
    report[label]!['held_out_odd']!['decision'] = accuracy.held_out_odd;
  }
  process.stderr.write(`${label}: ${JSON.stringify(report[label])}\n`);
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
