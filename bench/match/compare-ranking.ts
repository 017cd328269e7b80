// Pooled hit@1 / hit@3 of ranking variants on every request set at once (BFCL by split, the others by language),
// for trying a change of the ranking against all the sets before a full `bench:match`. Each variant is the fitted
// parameters with a JSON override, merged one level deep:
// npx tsx bench/match/compare-ranking.ts [--data FILE]... [--variant 'NAME={"fields":"combined","bm25":{"k":1.2}}']...
import { parseArgs } from 'node:util';
import { compareToolNames } from '../../src/core/index.js';
import { createMatcher, FITTED_RANKING, type Matcher, type RankingParameters } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData, type BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { DATA_SETS } from './run.js';
import { asIndex } from './systems.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

const { values } = parseArgs({ options: { data: { type: 'string', multiple: true }, variant: { type: 'string', multiple: true } } });
const variants: Array<[string, RankingParameters]> = [['fitted', FITTED_RANKING], ...(values.variant ?? []).map(parseVariant)];

/** `NAME=JSON`: the fitted parameters with JSON's keys replaced (objects merged one level deep). */
function parseVariant(text: string): [string, RankingParameters] {
  const at = text.indexOf('=');
  const override = JSON.parse(text.slice(at + 1)) as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...FITTED_RANKING };
  for (const [key, value] of Object.entries(override)) {
    const base = merged[key];
    merged[key] = typeof value === 'object' && value !== null && typeof base === 'object' ? { ...base, ...value } : value;
  }
  return [text.slice(0, at), merged as unknown as RankingParameters];
}

function rankOf(matcher: Matcher, world: BenchWorld, query: BenchQuery): number {
  const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
  const names = [...new Set(matcher.explainIntent(query.text).ranked.map((entry) => world.benchName.get(entry.tool.name)!))];
  return names.findIndex((name) => gold.has(name));
}

const table: Record<string, Record<string, string>> = {};
for (const file of values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS]) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const base = createMatcher(asIndex([...world.toolsById.values()].sort(compareToolNames)));
  const answerable = data.queries.filter((query) => query.gold.length > 0);
  const groupOf = (query: BenchQuery): string => (file === DEFAULT_DATA ? (isTuningQuery(query) ? 'even' : 'odd') : query.lang);
  for (const [label, ranking] of variants) {
    const matcher = base.reconfigure({ ranking });
    const groups = new Map<string, { n: number; hit1: number; hit3: number }>();
    for (const query of answerable) {
      const rank = rankOf(matcher, world, query);
      const group = groups.get(groupOf(query)) ?? { n: 0, hit1: 0, hit3: 0 };
      group.n += 1;
      if (rank === 0) group.hit1 += 1;
      if (rank >= 0 && rank < 3) group.hit3 += 1;
      groups.set(groupOf(query), group);
    }
    for (const [group, counts] of [...groups].sort()) {
      const row = `${data.name} ${group} (${counts.n})`;
      (table[row] ??= {})[label] = `${(counts.hit1 / counts.n).toFixed(3)} / ${(counts.hit3 / counts.n).toFixed(3)}`;
    }
  }
  process.stderr.write(`${data.name} done\n`);
}
const labels = variants.map(([label]) => label);
process.stdout.write(`| set | ${labels.join(' | ')} |\n|---|${labels.map(() => '---').join('|')}|\n`);
for (const [row, cells] of Object.entries(table)) process.stdout.write(`| ${row} | ${labels.map((label) => cells[label]).join(' | ')} |\n`);
