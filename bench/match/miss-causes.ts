// The ranking's misses by cause, by set (BFCL by split, the others by language): for each answerable request whose gold
// tool is not first (distinct names, as first-stage-reach.ts counts them), whether the re-rank saw the gold tool at all,
// and if so, how the request words the first tool matched compare with those the gold tool matched (the same words:
// near twins the words cannot tell apart; more words; fewer; other words), and where the first tool's extra words lie.
// `npx tsx bench/match/miss-causes.ts [--data FILE]... [--examples N]` (N misses of each cause printed per group).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compareToolNames } from '../../src/core/index.js';
import { FITTED_RANKING, loadLexicon } from '../../src/matcher/index.js';
import { matchedFields } from '../../src/matcher/features.js';
import { rankTools, type RankedTool } from '../../src/matcher/rank.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { isTuningQuery, readBenchData, type BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { DATA_SETS } from './run.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

await loadLexicon();
const { values } = parseArgs({ options: { data: { type: 'string', multiple: true }, examples: { type: 'string', default: '0' } } });

const CAUSES = [
  'gold not ranked (the first stage\'s 20 lack it)',
  'first has the same words as gold',
  'first has more of the words',
  'gold has more of the words',
  'they have other words',
] as const;
type Cause = (typeof CAUSES)[number];
const PLACES = ['first has no extra word', 'its extra words only in parameters', 'some in its intent or examples', 'some in its names'];

// The best field group each matched request word was found in: 3 a name, 2 the intent or an example, 1 anything else.
function wordPlaces(index: SearchIndex, entry: RankedTool, words: ReturnType<typeof rankTools>['words']): Map<string, number> {
  const places = new Map<string, number>();
  for (const line of matchedFields(index, entry.position, words)) {
    const [field, list] = line.split(': ') as [string, string];
    const rank = ['name', 'display', 'aliases'].includes(field) ? 3 : ['intent', 'examples'].includes(field) ? 2 : 1;
    for (const word of list.split(', ')) places.set(word, Math.max(places.get(word) ?? 0, rank));
  }
  return places;
}

function causeOf(first: Map<string, number>, gold: Map<string, number>): Cause {
  const firstOnly = [...first.keys()].filter((word) => !gold.has(word)).length;
  const goldOnly = [...gold.keys()].filter((word) => !first.has(word)).length;
  if (firstOnly === 0 && goldOnly === 0) return 'first has the same words as gold';
  if (goldOnly === 0) return 'first has more of the words';
  return firstOnly === 0 ? 'gold has more of the words' : 'they have other words';
}

// Two definitions no matcher can tell apart: the same intent and the same parameter names (BFCL offers some functions
// under two names: `calculate_factorial` and `math.factorial`, "Calculate the factorial of a given number.", `number`);
// near twins by a looser rule: intents sharing ≥ 0.6 of their words and parameter names sharing ≥ 0.5 (Jaccard).
function definitionWords(index: SearchIndex, entry: RankedTool): { intent: Set<string>; params: Set<string> } {
  const tool = index.tools.at(entry.position)!;
  const properties = tool.params_schema['properties'];
  const params = new Set(typeof properties === 'object' && properties !== null ? Object.keys(properties).map((name) => name.toLowerCase()) : []);
  return { intent: new Set(tool.intent.toLowerCase().match(/[\p{L}\p{Nd}]+/gu) ?? []), params };
}

function jaccard(a: Set<string>, b: Set<string>): number {
  const union = new Set([...a, ...b]).size;
  return union === 0 ? 1 : [...a].filter((word) => b.has(word)).length / union;
}

function twinKind(index: SearchIndex, first: RankedTool, gold: RankedTool): Twin | undefined {
  const [a, b] = [definitionWords(index, first), definitionWords(index, gold)];
  const [intent, params] = [jaccard(a.intent, b.intent), jaccard(a.params, b.params)];
  if (intent === 1 && params === 1) return 'identical definitions';
  return intent >= 0.6 && params >= 0.5 ? 'near-identical definitions' : undefined;
}

type Twin = 'identical definitions' | 'near-identical definitions';

/** A miss: its cause, where the first tool's extra words lie, the gold tool's 0-based place (-1: absent), a line for reading. */
interface Miss {
  cause: Cause;
  twin?: Twin;
  place?: string;
  at: number;
  line: string;
}

function describe(index: SearchIndex, world: BenchWorld, query: BenchQuery): Miss | undefined {
  const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
  const { ranked, words } = rankTools(index, FITTED_RANKING, query.text);
  const nameOf = (entry: RankedTool): string => world.benchName.get(index.tools.at(entry.position)!.name)!;
  const seen = new Set<string>();
  const distinct = ranked.filter((entry) => !seen.has(nameOf(entry)) && seen.add(nameOf(entry)));
  const at = distinct.findIndex((entry) => gold.has(nameOf(entry)));
  if (at === 0) return undefined;
  const first = distinct[0];
  const line = `${query.id} (gold ${at < 0 ? 'absent' : at + 1}): ${query.text.replace(/\s+/g, ' ').slice(0, 120)} | first ${first === undefined ? '-' : nameOf(first)}, gold ${[...gold][0]}`;
  if (at < 0 || first === undefined) return { cause: 'gold not ranked (the first stage\'s 20 lack it)', at: -1, line };
  const firstPlaces = wordPlaces(index, first, words);
  const goldPlaces = wordPlaces(index, distinct[at]!, words);
  const extra = [...firstPlaces].filter(([word]) => !goldPlaces.has(word)).map(([, place]) => place);
  return { cause: causeOf(firstPlaces, goldPlaces), place: PLACES[extra.length === 0 ? 0 : Math.max(...extra)], at, line, twin: twinKind(index, first, distinct[at]!) };
}

for (const file of values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS]) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const index = buildSearchIndex([...world.toolsById.values()].sort(compareToolNames));
  const groups = new Map<string, { answerable: number; counts: Map<string, number>; examples: Map<Cause, string[]> }>();
  for (const query of data.queries) {
    if (query.gold.length === 0) continue;
    const key = resolve(file) === DEFAULT_DATA ? (isTuningQuery(query) ? 'even' : 'odd') : query.lang;
    const group = groups.get(key) ?? { answerable: 0, counts: new Map<string, number>(), examples: new Map<Cause, string[]>() };
    groups.set(key, group);
    group.answerable += 1;
    const miss = describe(index, world, query);
    if (miss === undefined) continue;
    const place = miss.at < 0 ? undefined : miss.at < 3 ? 'gold 2nd or 3rd' : 'gold 4th to 20th';
    for (const name of ['misses', miss.cause, ...(miss.twin === undefined ? [] : [miss.twin]), ...(place === undefined ? [] : [place]), ...(miss.place === undefined ? [] : [`  ${miss.place}`])]) group.counts.set(name, (group.counts.get(name) ?? 0) + 1);
    const lines = group.examples.get(miss.cause) ?? [];
    if (lines.length < Number(values.examples)) group.examples.set(miss.cause, [...lines, miss.line]);
  }
  for (const [key, { answerable, counts, examples }] of groups) {
    const places = `gold 2nd or 3rd ${counts.get('gold 2nd or 3rd') ?? 0}, 4th to 20th ${counts.get('gold 4th to 20th') ?? 0}`;
    process.stdout.write(`## ${data.name} ${key}: ${answerable} answerable, ${counts.get('misses') ?? 0} hit@1 misses (${places})\n`);
    for (const cause of CAUSES) process.stdout.write(`  ${cause}: ${counts.get(cause) ?? 0}\n`);
    for (const place of PLACES) process.stdout.write(`    ${place}: ${counts.get(`  ${place}`) ?? 0}\n`);
    // no matcher can choose between identical definitions: hit@1 with those counted right, beside (never instead of) the real one
    const misses = counts.get('misses') ?? 0;
    const identical = counts.get('identical definitions') ?? 0;
    const near = counts.get('near-identical definitions') ?? 0;
    process.stdout.write(`  the first tool's definition identical to the gold one's: ${identical}; near-identical: ${near}\n`);
    process.stdout.write(`  hit@1 ${((answerable - misses) / answerable).toFixed(3)}; identical twins counted right ${((answerable - misses + identical) / answerable).toFixed(3)}; near-identical too ${((answerable - misses + identical + near) / answerable).toFixed(3)}\n`);
    for (const [cause, lines] of examples) for (const line of lines) process.stdout.write(`    [${cause}] ${line}\n`);
  }
}
