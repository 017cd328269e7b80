// What each feature of the found:false decision is worth: `npx tsx bench/match/ablate-decision.ts [--data FILE]`
// refits the logistic model on the even split without one feature at a time (and with all of them)
// and prints its accuracy at the 0.5 cut on both splits, within each request's offered candidates.
import { parseArgs } from 'node:util';
import { DECISION_FEATURES, FITTED_RANKING } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData } from './bench-data.js';
import { decisionRows } from './fit-decision.js';
import { fitLogistic, predictLogistic, type LogisticFit } from './logistic.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

const { values } = parseArgs({ options: { data: { type: 'string', default: DEFAULT_DATA } } });
const data = await readBenchData(values.data!);
const { world } = await prepareWorld(data);
const even = decisionRows(world, data.queries.filter(isTuningQuery), FITTED_RANKING);
const odd = decisionRows(world, data.queries.filter((query) => !isTuningQuery(query)), FITTED_RANKING);

function accuracy(fit: LogisticFit, rows: number[][], labels: number[], keep: (index: number) => boolean): number {
  let correct = 0;
  rows.forEach((row, index) => {
    if (predictLogistic(fit, row.filter((_, feature) => keep(feature))) >= 0.5 === (labels[index] === 1)) correct += 1;
  });
  return Math.round((correct / rows.length) * 1000) / 1000;
}

const report: Record<string, { tuning_even: number; held_out_odd: number }> = {};
for (const dropped of [undefined, ...DECISION_FEATURES]) {
  const keep = (feature: number): boolean => DECISION_FEATURES[feature] !== dropped;
  const fit = fitLogistic(
    even.rows.map((row) => row.filter((_, feature) => keep(feature))),
    even.labels,
  );
  report[dropped === undefined ? 'all features' : `without ${dropped}`] = {
    tuning_even: accuracy(fit, even.rows, even.labels, keep),
    held_out_odd: accuracy(fit, odd.rows, odd.labels, keep),
  };
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
