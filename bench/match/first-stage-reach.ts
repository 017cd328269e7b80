// Where each answerable request's gold tool stands, by set (BFCL by split, the others by language): in the first
// stage's order and after the re-rank, with the fitted parameters, with 200 places, and with every term read —
// how many misses the first stage's bounds cause before the re-rank can see the tool.
// `npx tsx bench/match/first-stage-reach.ts [--data FILE]...`
import { parseArgs } from 'node:util';
import { compareToolNames } from '../../src/core/index.js';
import { FITTED_RANKING, loadLexicon, type RankingParameters } from '../../src/matcher/index.js';
import { rankTools, type RankedTool } from '../../src/matcher/rank.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { isTuningQuery, readBenchData, type BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { DATA_SETS } from './run.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

await loadLexicon();
const { values } = parseArgs({ options: { data: { type: 'string', multiple: true } } });
const VARIANTS: Array<[string, RankingParameters]> = [
  ['fitted', FITTED_RANKING],
  ['200 places', { ...FITTED_RANKING, depth: 200 }],
  ['every term', { ...FITTED_RANKING, depth: 200, postingsBudget: Number.MAX_SAFE_INTEGER, maxTerms: Number.MAX_SAFE_INTEGER }],
];
const BUCKETS = ['1', '2-3', '4-10', '11-20', '21-50', '51+', 'absent'];

function bucket(at: number): string {
  if (at < 0) return 'absent';
  const limits = [1, 3, 10, 20, 50];
  const found = limits.findIndex((limit) => at < limit);
  return BUCKETS[found < 0 ? 5 : found]!;
}

// 0-based place of the first gold name among distinct names (same-name variants are one tool), -1 when absent
function placeOf(index: SearchIndex, world: BenchWorld, ranked: RankedTool[], query: BenchQuery): number {
  const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
  const names = [...new Set(ranked.map((entry) => world.benchName.get(index.tools.at(entry.position)!.name)!))];
  return names.findIndex((name) => gold.has(name));
}

for (const file of values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS]) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const index = buildSearchIndex([...world.toolsById.values()].sort(compareToolNames));
  const groupOf = (query: BenchQuery): string => (file === DEFAULT_DATA ? (isTuningQuery(query) ? 'even' : 'odd') : query.lang);
  const counts = new Map<string, Map<string, number>>();
  const count = (group: string, key: string): void => {
    const table = counts.get(group) ?? new Map<string, number>();
    counts.set(group, table.set(key, (table.get(key) ?? 0) + 1));
  };
  for (const query of data.queries) {
    if (query.gold.length === 0) continue;
    count(groupOf(query), 'requests');
    for (const [label, parameters] of VARIANTS) {
      const { ranked } = rankTools(index, parameters, query.text);
      const firstStage = [...ranked].sort((a, b) => b.stage1Score - a.stage1Score || a.position - b.position);
      count(groupOf(query), `${label} re-rank ${bucket(placeOf(index, world, ranked, query))}`);
      count(groupOf(query), `${label} first stage ${bucket(placeOf(index, world, firstStage, query))}`);
    }
  }
  for (const [group, table] of counts) {
    process.stdout.write(`## ${data.name} ${group}: ${table.get('requests')} answerable requests, the gold tool's place\n`);
    for (const [label] of VARIANTS) {
      for (const stage of ['first stage', 're-rank']) {
        const cells = BUCKETS.map((name) => `${name}: ${table.get(`${label} ${stage} ${name}`) ?? 0}`);
        process.stdout.write(`  ${`${label}, ${stage}`.padEnd(24)} ${cells.join('  ')}\n`);
      }
    }
  }
}
