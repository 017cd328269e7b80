// What each part of the ranking is worth: `npx tsx bench/match/ablate.ts [--data FILE]` prints pooled
// hit@1 / hit@3 on both splits for the fitted parameters and for variants that drop one part.
import { parseArgs } from 'node:util';
import { compareToolNames } from '../../src/core/index.js';
import { createMatcher, FITTED_RANKING, type RankingParameters } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData } from './bfcl-data.js';
import { DEFAULT_DATA, prepareWorld } from './run.js';

const NO_RERANK = {
  stage1: 1,
  coverage: 0,
  namingCoverage: 0,
  describingCoverage: 0,
  paramCoverage: 0,
  nameShare: 0,
  intentShare: 0,
};

const VARIANTS: Array<[string, RankingParameters]> = [
  ['fitted', FITTED_RANKING],
  ['no re-rank (first stage only)', { ...FITTED_RANKING, rerank: NO_RERANK }],
  ['equal boosts, minisearch BM25 defaults', { ...FITTED_RANKING, boosts: { naming: 1, describing: 1, details: 1 }, bm25: { k: 1.2, b: 0.7, d: 0.5 } }],
  ['prefix matching of 6+ character terms', { ...FITTED_RANKING, prefixMinLength: 6 }],
  ['postings budget 300', { ...FITTED_RANKING, postingsBudget: 300 }],
  ['postings budget unlimited', { ...FITTED_RANKING, postingsBudget: Number.MAX_SAFE_INTEGER }],
];

const { values } = parseArgs({ options: { data: { type: 'string', default: DEFAULT_DATA } } });
const data = await readBenchData(values.data!);
const { world } = await prepareWorld(data);
const tools = [...world.toolsById.values()].sort(compareToolNames);
const base = createMatcher({ source: 'bench', commit: 'bench', tools, errors: [], warnings: [], scanned_at: '' });
const withGold = data.queries.filter((query) => query.gold.length > 0);
const report: Record<string, Record<string, { hit1: number; hit3: number }>> = {};
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
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  report[label] = Object.fromEntries(
    Object.entries(splits).map(([split, s]) => [split, { hit1: round(s.hit1 / s.n), hit3: round(s.hit3 / s.n) }]),
  );
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
