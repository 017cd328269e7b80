// Per language and per half, the few numbers issue #11's language bridges are judged by:
// `npx tsx bench/match/languages.ts [--data FILE]... [--misses LANG] [--half even|odd]`.
// Without --data: every set of bench/match/data. Prints one line per (set, language, half): hit@1 / hit@3,
// found:false on answerable, refused no-tool, cost; --misses LANG also lists that language's misses (of the half
// given, the tuning half by default: a change is tuned on the even half and reported on both).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readBenchData } from './bench-data.js';
import { evaluate, type QueryOutcome } from './evaluate.js';
import { summarise } from './metrics.js';
import { matcherSystem } from './systems.js';
import { prepareWorld } from './world.js';

const { values } = parseArgs({
  options: { data: { type: 'string', multiple: true }, misses: { type: 'string' }, half: { type: 'string', default: 'even' } },
});

function line(outcomes: readonly QueryOutcome[]): string {
  const m = summarise(outcomes);
  const d = m.decision;
  return `n ${String(outcomes.length).padStart(3)}  hit@1/3 ${m.pooled.hit1.toFixed(3)} / ${m.pooled.hit3.toFixed(3)}  ff:ans ${d.found_false_on_answerable.toFixed(3)}  refused ${d.refused_no_tool.toFixed(2)} (${d.no_tool})  cost ${d.cost.toFixed(3)}`;
}

const folder = fileURLToPath(new URL('./data/', import.meta.url));
const sets = readdirSync(folder).filter((name) => name.endsWith('.json')).sort().map((name) => `${folder}${name}`);

for (const file of values.data?.length ? values.data : sets) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const outcomes = evaluate(matcherSystem(), world, data.queries);
  const languages = [...new Set(outcomes.map((o) => o.query.lang))].sort();
  for (const language of languages) {
    const of = outcomes.filter((o) => o.query.lang === language);
    for (const [half, part] of [['even', of.filter((o) => o.tuning)], ['odd', of.filter((o) => !o.tuning)], ['all', of]] as const) {
      process.stdout.write(`${data.name.padEnd(26)} ${language} ${half.padEnd(4)} ${line(part)}\n`);
    }
    if (values.misses !== language) continue;
    const explain = matcherSystem()([...world.toolsById.values()]);
    for (const o of of.filter((o) => o.tuning === (values.half === 'even'))) {
      const gold = o.query.gold;
      const answer = explain(o.query.text);
      const wrong = gold.length === 0 ? answer.found === true : o.pooledRank > 3 || answer.found !== true;
      if (wrong) process.stdout.write(`  miss ${o.query.id} gold=${gold.join(',') || '-'} found=${answer.found} top=${answer.names.slice(0, 3).join(',')} | ${o.query.text}\n`);
    }
  }
}
