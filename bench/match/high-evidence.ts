// What a `confidence: "high"` answer's first candidate covers of the request, and whether it is right (issue #11,
// userZ7 F6): for every set bench:match has, each request asked within its candidates as bench:match asks it; every
// lexical answer the confidence model makes high, its first candidate right or not, its coverage and word counts, and
// whether the strong-match rule (`strongMatch`) leaves it high. Prints per set and split the precision of high (the
// share whose first candidate fits) before and after, and how many answers it lowers; `--json` the rows.
// `nice npx tsx bench/match/high-evidence.ts [--json] [--data FILE]...`
import { parseArgs } from 'node:util';
import { createMatcher, type Matcher } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData } from './bench-data.js';
import { DATA_SETS } from './run.js';
import { asIndex } from './systems.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

interface Row { set: string; tuning: boolean; right: boolean; coverage: number; plain: number; content: number; matched: number; words: number; evidence: number; text: string; first: string; high: boolean }

const { values } = parseArgs({ options: { data: { type: 'string', multiple: true }, json: { type: 'boolean', default: false } } });
const files = values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS];
const rows: Row[] = [];
for (const file of files) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const matchers = new Map<string, Matcher>();
  for (const query of data.queries) {
    const key = [...query.candidates].sort().join('\n');
    let matcher = matchers.get(key);
    if (matcher === undefined) {
      matcher = createMatcher(asIndex(query.candidates.map((id) => world.toolsById.get(id)!)));
      matchers.set(key, matcher);
    }
    const answer = matcher.matchIntent(query.text);
    if (!answer.found || answer.stage !== 'lexical') continue;
    const explanation = matcher.explainIntent(query.text);
    const best = explanation.ranked[0]!;
    // the answers the confidence model alone makes high (as before the strong-match rule; `contested` aside)
    if (best.probability < explanation.calibration.threshold) continue;
    const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    rows.push({
      set: data.name,
      tuning: isTuningQuery(query),
      right: gold.has(world.benchName.get(answer.candidates[0]!.name)!),
      coverage: best.features.coverage,
      plain: best.features.plainCoverage,
      content: best.features.contentCoverage,
      matched: best.features.matchedWords,
      words: best.features.queryWords,
      evidence: best.features.evidence,
      text: query.text.slice(0, 120),
      first: answer.candidates[0]!.name,
      high: answer.confidence === 'high',
    });
  }
  process.stderr.write(`${data.name}: ${rows.filter((row) => row.set === data.name).length} high answers\n`);
}
if (values.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
// per set and split: the model's high answers, and those the strong-match rule leaves high, with their precision
const precision = (list: Row[]): number => (list.length ? Math.round((list.filter((r) => r.right).length / list.length) * 1000) / 1000 : NaN);
for (const set of [...new Set(rows.map((row) => row.set))]) {
  for (const [split, pick] of [['tuning_even', (r: Row) => r.tuning], ['held_out_odd', (r: Row) => !r.tuning]] as const) {
    const before = rows.filter((row) => row.set === set && pick(row));
    const after = before.filter((row) => row.high);
    const lowered = before.filter((row) => !row.high);
    process.stdout.write(`${set} ${split}: high ${before.length} precision ${precision(before)} → high ${after.length} precision ${precision(after)}; lowered ${lowered.length} (first right ${lowered.filter((r) => r.right).length})\n`);
  }
}
