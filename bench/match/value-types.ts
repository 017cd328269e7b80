// Issue #11, match17: does the kind of the request's literal values (numbers) fit the kinds of a tool's parameters?
// BFCL requests carry values ("a = 3, b = -11", "70 kg"), and a tool that has somewhere to put them is likelier the one
// asked for: evidence about the request's values that does not depend on its language. This probe re-ranks the
// re-rank's 20 with a value-kind feature added at a grid of weights, chooses the weight on BFCL's even half alone, and
// prints hit@1 / hit@3 (distinct names over the 20, as miss-causes.ts counts) for every set at each weight.
// `npx tsx bench/match/value-types.ts [--data FILE]...`
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compareToolNames, type ToolDefinition } from '../../src/core/index.js';
import { FITTED_RANKING, loadLexicon } from '../../src/matcher/index.js';
import { rankTools } from '../../src/matcher/rank.js';
import { valueWords } from '../../src/matcher/value-words.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { isTuningQuery, readBenchData } from './bench-data.js';
import { DATA_SETS } from './run.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

await loadLexicon();
const { values } = parseArgs({ options: { data: { type: 'string', multiple: true } } });

// a number standing alone or with a unit glued on (70kg, 1.75m, -11, 3,5), not a digit inside a code (user123, v2)
const NUMBER = /(?<![\p{L}\p{Nd}_.])[-+−]?\p{Nd}+(?:[.,]\p{Nd}+)*(?![\p{Nd}_])/gu;
const DATE = /\b\d{4}-\d{2}-\d{2}\b/g;

const MONTH = /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?\s*\d{1,2}(?:st|nd|rd|th)?(?:,?\s*\d{4})?|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/giu;
const DATE_SLOT = /date|day|time|when|start|end|from|until|since/i;

interface RequestValues {
  numbers: number;
  dates: number;
  names: number;
}

function requestValues(text: string): RequestValues {
  const dates = text.match(MONTH)?.length ?? 0;
  const rest = text.replace(MONTH, ' ');
  const numbers = rest.replace(DATE, ' ').match(NUMBER)?.length ?? 0;
  return { numbers, dates, names: valueWords(rest).size };
}

interface Slots {
  strictDates: number;
  numeric: number;
  strings: number;
  dates: number;
  requiredNumeric: number;
  params: number;
}

function slotsOf(tool: ToolDefinition): Slots {
  const schema = tool.params_schema as Record<string, unknown>;
  const full = schema.type === 'object' && typeof schema.properties === 'object';
  const properties = (full ? schema.properties : schema) as Record<string, Record<string, unknown>>;
  const required = new Set(full && Array.isArray(schema.required) ? (schema.required as string[]) : []);
  let numeric = 0;
  let strings = 0;
  let dates = 0;
  let strictDates = 0;
  let requiredNumeric = 0;
  let params = 0;
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (typeof property !== 'object' || property === null) continue;
    params += 1;
    const types = ([] as unknown[]).concat(property.type ?? []);
    const isNumeric = types.includes('integer') || types.includes('number');
    const isRequired = required.has(name) || property.required === true;
    if (isNumeric) numeric += 1;
    if (types.includes('string')) strings += 1;
    if (types.includes('string') && (/date|time|day/i.test(name) || /^date/.test(String(property.format ?? '')))) strictDates += 1;
    if (types.includes('string') && (DATE_SLOT.test(name) || /^date/.test(String(property.format ?? '')))) dates += 1;
    if (isNumeric && isRequired) requiredNumeric += 1;
  }
  return { strictDates, numeric, strings, dates, requiredNumeric, params };
}

type Feature = (numbers: number, slots: Slots, values: RequestValues) => number;
const FEATURES: Record<string, Feature> = {
  // how near the count of the tool's numeric parameters is to the count of the request's numbers (only where it gives some)
  arity: (n, s) => (n === 0 ? 0 : 1 - Math.abs(n - s.numeric) / Math.max(n, s.numeric)),
  // share of the request's values of each kind (numbers, dates, other values) the tool has a parameter of that kind for
  kind: (n, s, v) => {
    const total = n + v.dates + v.names;
    if (total === 0) return 0;
    const dates = Math.min(v.dates, s.dates);
    const strings = Math.min(v.names + v.dates - dates, Math.max(0, s.strings - dates));
    return (Math.min(n, s.numeric) + dates + strings) / total;
  },
  // a date given and a date-like parameter to take it
  date: (_n, s, v) => (v.dates === 0 ? 0 : Math.min(v.dates, s.dates) / v.dates),
  // the same with a parameter named for a date, a day or a time only
  strict: (_n, s, v) => (v.dates === 0 ? 0 : Math.min(v.dates, s.strictDates) / v.dates),
  // a date given and some date-like parameter (1 or 0), only for a tool the words give evidence for
  any: (_n, s, v) => (v.dates > 0 && s.strictDates > 0 ? 1 : 0),
  // share of the request's numbers the tool has numeric parameters for
  fit: (n, s) => (n === 0 ? 0 : Math.min(n, s.numeric) / n),
  // the request gives numbers and the tool takes none
  none: (n, s) => (n > 0 && s.numeric === 0 ? 1 : 0),
  // share of the tool's required numeric parameters the request's numbers cannot fill (only where it gives numbers)
  short: (n, s) => (n === 0 || s.requiredNumeric === 0 ? 0 : Math.max(0, s.requiredNumeric - n) / s.requiredNumeric),
  // both: fit less shortfall
  both: (n, s) => (n === 0 ? 0 : Math.min(n, s.numeric) / n - (s.requiredNumeric === 0 ? 0 : Math.max(0, s.requiredNumeric - n) / s.requiredNumeric)),
};
const WEIGHTS = [-2, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 1.5, 2, 3];

interface Candidate {
  name: string;
  score: number;
  features: Record<string, number>;
}
interface Row {
  id: string;
  text: string;
  group: string;
  gold: Set<string>;
  candidates: Candidate[];
}

const rows: Row[] = [];
for (const file of values.data?.length ? values.data : [DEFAULT_DATA, ...DATA_SETS]) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const tools = [...world.toolsById.values()].sort(compareToolNames);
  const index = buildSearchIndex(tools);
  const slots = new Map(tools.map((tool) => [tool.name, slotsOf(tool)]));
  const bfcl = resolve(file) === DEFAULT_DATA;
  for (const query of data.queries) {
    if (query.gold.length === 0) continue;
    const group = `${data.name} ${bfcl ? (isTuningQuery(query) ? 'even' : 'odd') : query.lang}`;
    const gold = new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    const given = requestValues(query.text);
    const numbers = given.numbers;
    const { ranked } = rankTools(index, FITTED_RANKING, query.text);
    const candidates = ranked.map((entry): Candidate => {
      const tool = index.tools.at(entry.position)!;
      const gate = entry.features.evidence >= 0.3 ? 1 : 0;
      const features = Object.fromEntries(Object.entries(FEATURES).map(([name, f]) => [name, gate * f(numbers, slots.get(tool.name)!, given)]));
      return { name: world.benchName.get(tool.name)!, score: entry.score, features };
    });
    rows.push({ id: query.id, text: query.text, group, gold, candidates });
  }
  process.stderr.write(`${data.name} done\n`);
}

function hits(row: Row, feature: string, weight: number): [number, number] {
  const order = row.candidates
    .map((c, at) => ({ c, at, s: c.score + weight * c.features[feature]! }))
    .sort((a, b) => b.s - a.s || a.at - b.at);
  const seen = new Set<string>();
  const names = order.map(({ c }) => c.name).filter((name) => !seen.has(name) && seen.add(name));
  const at = names.findIndex((name) => row.gold.has(name));
  return [at === 0 ? 1 : 0, at >= 0 && at < 3 ? 1 : 0];
}

const groups = [...new Set(rows.map((row) => row.group))];
for (const feature of Object.keys(FEATURES)) {
  process.stdout.write(`\n## ${feature}\n| set (n) | ${WEIGHTS.join(' | ')} |\n|---|${WEIGHTS.map(() => '---').join('|')}|\n`);
  for (const group of groups) {
    const mine = rows.filter((row) => row.group === group);
    const cells = WEIGHTS.map((weight) => {
      let h1 = 0;
      let h3 = 0;
      for (const row of mine) {
        const [a, b] = hits(row, feature, weight);
        h1 += a;
        h3 += b;
      }
      return `${h1}/${h3}`;
    });
    process.stdout.write(`| ${group} (${mine.length}) | ${cells.join(' | ')} |\n`);
  }
}

// the held-out requests whose first tool a feature changes at a weight: FEATURE=WEIGHT in --swaps
const swaps = process.env.SWAPS;
if (swaps !== undefined) {
  const [feature, weight] = swaps.split('=') as [string, string];
  for (const row of rows) {
    const [before] = hits(row, feature, 0);
    const [after] = hits(row, feature, Number(weight));
    if (before !== after) process.stdout.write(`${after > before ? 'UP  ' : 'DOWN'} ${row.group} ${row.id}: ${row.text.replace(/\s+/g, ' ').slice(0, 140)}\n`);
  }
}
