// The found:false trade-off, for reading: `npx tsx bench/match/refusal-curve.ts [--data FILE]...`
// (default: BFCL and every set of bench/match/data); prints JSON on stdout.
// For each set and language, at each cut of evidence below which the answer is `found: false` (the
// matcher's `NOTHING_MATCHES` is 0.3; 0 = whenever the first stage ranks any tool), the share of
// answerable requests wrongly answered found:false, the share of no-tool requests refused, and the
// cost (a wrong found:false 3, a found answer offering no fitting tool 1). Then, for the answerable
// requests answered found:false at the matcher's own cut, where the gold tool stood and what of it
// the request's words reach: nothing at all, only its `why`/`group`, only values, or parts of words.
// Last, `stricter`: rules that would also refuse a weak match (one word of evidence and a low
// probability, a best tool covering little of the request, a request mostly of words no tool has),
// with the decision's accuracy beside the rest: whether refusing more no-tool requests can be had
// without more wrong found:false (issue #11: on these sets, it cannot).
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compareToolNames, type ToolDefinition } from '../../src/core/index.js';
import { analyze, createMatcher, NOTHING_MATCHES, type Matcher } from '../../src/matcher/index.js';
import { isTuningQuery, readBenchData, type BenchQuery } from './bench-data.js';
import { DATA_SETS } from './run.js';
import { asIndex } from './systems.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

const CUTS = [0.5, NOTHING_MATCHES, 0.25, 0.2, 0.125, 0.05, 0];

interface Row {
  query: BenchQuery;
  /** the most evidence among the three best-ranked tools, and whether any tool was ranked at all */
  evidence: number;
  ranked: number;
  /** whether the first three offered hold a gold tool */
  offeredHit: boolean;
  /** for a request with a gold tool: the gold tool's place (0: not ranked) and what of it the words reach */
  goldPlace: number;
  reach: string;
  /** the best-ranked tool's probability of fitting, the registry's cut, its coverage of the request, and the request's share of words no tool has */
  probability: number;
  threshold: number;
  coverage: number;
  unknownShare: number;
}

/** Rules of "found" stricter than the matcher's, each refusing a kind of weak match too. */
const STRICTER: Record<string, (row: Row) => boolean> = {
  'as shipped: evidence >= 0.3': (row) => isFound(row, NOTHING_MATCHES),
  'and more than one word of evidence, or a confident probability': (row) => isFound(row, NOTHING_MATCHES) && (row.evidence > 1 || row.probability >= row.threshold),
  'and more than one word, or coverage >= 0.3, or a confident probability': (row) =>
    isFound(row, NOTHING_MATCHES) && (row.evidence > 1 || row.coverage >= 0.3 || row.probability >= row.threshold),
  'and the best tool covers >= 0.2 of the request': (row) => isFound(row, NOTHING_MATCHES) && row.coverage >= 0.2,
  'and not (one word of evidence in a request of >= 2/3 words no tool has)': (row) =>
    isFound(row, NOTHING_MATCHES) && !(row.evidence <= 1 && row.unknownShare >= 2 / 3),
};

const { values } = parseArgs({ options: { data: { type: 'string', multiple: true } } });
const files = values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS].filter((file) => existsSync(file));
const report: Record<string, unknown> = {};
for (const file of files) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const tools = [...world.toolsById.values()].sort(compareToolNames);
  const pooled = createMatcher(asIndex(tools));
  const within = new Map<string, Matcher>();
  const rows: Row[] = data.queries.map((query) => {
    const key = [...query.candidates].sort().join('\n');
    let matcher = query.candidates.length === tools.length ? pooled : within.get(key);
    if (matcher === undefined) {
      matcher = createMatcher(asIndex(query.candidates.map((id) => world.toolsById.get(id)!)));
      within.set(key, matcher);
    }
    const explanation = matcher.explainIntent(query.text);
    const best = explanation.ranked[0];
    const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    const names = explanation.ranked.map((entry) => world.benchName.get(entry.tool.name)!);
    const place = names.findIndex((name) => gold.has(name)) + 1;
    const goldTool = query.gold.length > 0 ? world.toolsById.get(query.gold[0]!)! : undefined;
    return {
      query,
      evidence: explanation.evidence,
      ranked: explanation.ranked.length,
      offeredHit: names.slice(0, 3).some((name) => gold.has(name)),
      goldPlace: place,
      reach: goldTool === undefined ? '' : reachOf(query.text, goldTool),
      probability: best?.probability ?? 0,
      threshold: explanation.calibration.threshold,
      coverage: best?.features.coverage ?? 0,
      unknownShare: best?.features.unknownShare ?? 0,
    };
  });
  const languages = [...new Set(rows.map((row) => row.query.lang))].sort();
  const splits: Record<string, Row[]> = { held_out_odd: rows.filter((row) => !isTuningQuery(row.query)), tuning_even: rows.filter((row) => isTuningQuery(row.query)) };
  for (const language of languages) splits[`lang_${language}`] = rows.filter((row) => row.query.lang === language);
  report[data.name] = {
    curve: Object.fromEntries(Object.entries(splits).map(([split, list]) => [split, CUTS.map((cut) => point(list, cut))])),
    wrong_found_false_at_the_cut: wrongRefusals(rows),
    stricter: Object.fromEntries(Object.entries(splits).map(([split, list]) => [split, stricter(list)])),
  };
  process.stderr.write(`refusal-curve ${data.name} done\n`);
}
process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);

function isFound(row: Row, cut: number): boolean {
  return row.ranked > 0 && row.evidence >= cut;
}

function point(rows: Row[], cut: number): Record<string, number> {
  return { cut, ...tradeOff(rows, (row) => isFound(row, cut)) };
}

// one line per rule: found:false on answerable / refused no-tool / accuracy / cost
function stricter(rows: Row[]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(STRICTER).map(([rule, found]) => {
      const { found_false_on_answerable: wrong, refused_no_tool: refused, accuracy, cost } = tradeOff(rows, found);
      return [rule, `${wrong} / ${refused} / ${accuracy} / ${cost}`];
    }),
  );
}

function tradeOff(rows: Row[], isFoundBy: (row: Row) => boolean): Record<string, number> {
  const answerable = rows.filter((row) => row.query.gold.length > 0);
  const noTool = rows.filter((row) => row.query.gold.length === 0);
  let cost = 0;
  for (const row of rows) {
    const found = isFoundBy(row);
    if (row.query.gold.length > 0) cost += found ? (row.offeredHit ? 0 : 1) : 3;
    else cost += found ? 1 : 0;
  }
  const share = (list: Row[], test: (row: Row) => boolean): number => round(list.filter(test).length / Math.max(1, list.length));
  return {
    found_false_on_answerable: share(answerable, (row) => !isFoundBy(row)),
    refused_no_tool: share(noTool, (row) => !isFoundBy(row)),
    accuracy: share(rows, (row) => isFoundBy(row) === row.query.gold.length > 0),
    cost: round(cost / Math.max(1, rows.length)),
  };
}

// what the wrongly refused requests have of their gold tool
function wrongRefusals(rows: Row[]): Record<string, unknown> {
  const wrong = rows.filter((row) => row.query.gold.length > 0 && !isFound(row, NOTHING_MATCHES));
  const count = (test: (row: Row) => boolean): number => wrong.filter(test).length;
  const reaches = [...new Set(wrong.map((row) => row.reach))].sort();
  return {
    requests: wrong.length,
    gold_not_ranked: count((row) => row.goldPlace === 0),
    gold_ranked_first: count((row) => row.goldPlace === 1),
    nothing_ranked: count((row) => row.ranked === 0),
    request_words_in_gold: Object.fromEntries(reaches.map((reach) => [reach, count((row) => row.reach === reach)])),
  };
}

// which fields of the gold tool hold one of the request's terms (stems, as the index has them)
function reachOf(text: string, tool: ToolDefinition): string {
  const terms = new Set(analyze(text));
  const properties = (tool.params_schema['properties'] ?? {}) as Record<string, { description?: string }>;
  const fields: Array<[string, string]> = [
    ['name', `${tool.name} ${tool.display} ${tool.aliases.join(' ')}`],
    ['intent', `${tool.intent} ${tool.examples.join(' ')}`],
    ['params', Object.entries(properties).map(([name, property]) => `${name} ${property.description ?? ''}`).join(' ')],
    ['why/group', `${tool.why} ${tool.group ?? ''}`],
  ];
  const found = fields.filter(([, fieldText]) => analyze(fieldText).some((term) => terms.has(term))).map(([field]) => field);
  if (found.length > 0) return found.join('+');
  // what a looser stemming or compound splitting would find: a word of 5 letters or more sharing its first 5 with one of the tool's, or one inside another
  const own = looseWords(fields.map(([, fieldText]) => fieldText).join(' '));
  const loose = looseWords(text).some((word) => own.some((other) => (word.length >= 5 && other.length >= 5 && word.slice(0, 5) === other.slice(0, 5)) || (word !== other && (word.includes(other) || other.includes(word)))));
  return loose ? 'no term in common, but a 5-letter prefix or a word inside another' : 'no term in common';
}

function looseWords(text: string): string[] {
  return text.normalize('NFKC').replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 4);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
