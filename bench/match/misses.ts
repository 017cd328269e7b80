// Prints a sample of the matcher's mistakes for reading by hand: pooled hit@1 misses and wrong
// found/not-found decisions within the offered candidates, per split; then, over all pooled misses,
// how often the tool ranked first describes itself nearly as the gold tool does (a rough count of
// misses where the pool holds an interchangeable tool).
// `npx tsx bench/match/misses.ts [--data FILE] [--misses 50] [--decisions 30]` (counts per split).
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { compareToolNames } from '../../src/core/index.js';
import { analyze, createMatcher, type Matcher } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData, type BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';
import { asIndex } from './systems.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: DEFAULT_DATA },
    misses: { type: 'string', default: '50' },
    decisions: { type: 'string', default: '30' },
  },
});
const data = await readBenchData(values.data!);
const { world } = await prepareWorld(data);
const tools = [...world.toolsById.values()].sort(compareToolNames);
const pooled = createMatcher(asIndex(tools));

// a stable sample that is not the file order (which groups by category)
const shuffled = [...data.queries].sort((a, b) => sampleKey(a).localeCompare(sampleKey(b)));
const out: string[] = [];
for (const tuning of [true, false]) {
  const split = shuffled.filter((query) => isTuningQuery(query) === tuning);
  out.push(`##### ${tuning ? 'EVEN (tuning)' : 'ODD (held out)'}`);
  let count = 0;
  for (const query of split) {
    if (query.gold.length === 0 || count >= Number(values.misses)) continue;
    const line = describeMiss(pooled, world, query);
    if (line === undefined) continue;
    count += 1;
    out.push(`--- miss ${count} [${query.category}] ${line}`);
  }
  count = 0;
  for (const query of split) {
    if (count >= Number(values.decisions)) break;
    const line = describeDecision(world, query);
    if (line === undefined) continue;
    count += 1;
    out.push(`--- decision ${count} [${query.category}] ${line}`);
  }
}
for (const tuning of [true, false]) out.push(lookalikes(data.queries.filter((query) => isTuningQuery(query) === tuning), tuning));
process.stdout.write(`${out.join('\n')}\n`);

// Jaccard overlap of the intents' distinct terms, between the first-ranked tool and the gold tool
function lookalikes(queries: BenchQuery[], tuning: boolean): string {
  const overlaps: number[] = [];
  for (const query of queries) {
    if (query.gold.length === 0) continue;
    const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    const top = pooled.explainIntent(query.text).ranked[0];
    if (top === undefined || gold.has(world.benchName.get(top.tool.name)!)) continue;
    const a = new Set(analyze(top.tool.intent));
    const b = new Set(query.gold.flatMap((id) => analyze(world.toolsById.get(id)!.intent)));
    const shared = [...a].filter((term) => b.has(term)).length;
    overlaps.push(shared / Math.max(1, new Set([...a, ...b]).size));
  }
  const share = (cut: number): string => (overlaps.filter((o) => o >= cut).length / overlaps.length).toFixed(3);
  return `##### ${tuning ? 'even' : 'odd'}: ${overlaps.length} pooled hit@1 misses; intent overlap with gold >= 0.5: ${share(0.5)}, >= 0.3: ${share(0.3)}`;
}

function describeMiss(matcher: Matcher, bench: BenchWorld, query: BenchQuery): string | undefined {
  const gold = new Set(query.gold.map((id) => bench.benchName.get(bench.toolsById.get(id)!.name)!));
  const ranked = matcher.explainIntent(query.text).ranked;
  const names = [...new Set(ranked.map((entry) => bench.benchName.get(entry.tool.name)!))];
  if (gold.has(names[0]!)) return undefined;
  const rank = names.findIndex((name) => gold.has(name));
  const goldTool = bench.toolsById.get(query.gold[0]!)!;
  const top = ranked[0];
  return [
    `rank ${rank < 0 ? '>10' : rank + 1}: ${clip(query.text, 300)}`,
    `  gold ${goldTool.display}: ${clip(goldTool.intent, 200)}`,
    top === undefined ? '  top: none' : `  top  ${top.tool.display}: ${clip(top.tool.intent, 200)} | ${top.matched.join('; ')}`,
  ].join('\n');
}

function describeDecision(bench: BenchWorld, query: BenchQuery): string | undefined {
  const offered = query.candidates.map((id) => bench.toolsById.get(id)!);
  const explanation = createMatcher(asIndex(offered)).explainIntent(query.text);
  const fits = query.gold.length > 0;
  if (explanation.found === fits) return undefined;
  const top = explanation.ranked[0];
  const features = Object.entries(explanation.decision)
    .map(([name, value]) => `${name}=${value.toFixed(2)}`)
    .join(' ');
  return [
    `${fits ? 'FALSE NO-TOOL' : 'FALSE FOUND'} p=${top?.probability ?? 0}: ${clip(query.text, 300)}`,
    `  top ${top?.tool.display ?? '-'}: ${clip(top?.tool.intent ?? '', 200)} | ${top?.matched.join('; ') ?? ''}`,
    `  ${features}`,
  ].join('\n');
}

function sampleKey(query: BenchQuery): string {
  return createHash('sha256').update(`sample:${query.id}`).digest('hex');
}

function clip(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

