// The loanword senses each request word gets (issue #11): `npx tsx bench/match/loanword-probe.ts [--data FILE]... [--half even|odd|all] [--lang L]`.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readBenchData } from './bench-data.js';
import { asIndex } from './systems.js';
import { prepareWorld } from './world.js';
import { isTuningQuery } from './bench-data.js';
import { analyzeWords } from '../../src/matcher/analyze.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { bridgedScripts, loanwordGlosses } from '../../src/matcher/loanwords.js';

const { values } = parseArgs({ options: { data: { type: 'string', multiple: true }, half: { type: 'string', default: 'even' }, lang: { type: 'string' } } });
const folder = fileURLToPath(new URL('./data/', import.meta.url));
const sets = readdirSync(folder).filter((name) => name.endsWith('.json')).sort().map((name) => `${folder}${name}`);
for (const file of values.data?.length ? values.data : sets) {
  const data = await readBenchData(file);
  const { world } = await prepareWorld(data);
  const index = buildSearchIndex(asIndex([...world.toolsById.values()]).tools);
  for (const query of data.queries) {
    if (values.lang !== undefined && query.lang !== values.lang) continue;
    if (values.half !== 'all' && isTuningQuery(query) !== (values.half === 'even')) continue;
    const scripts = bridgedScripts(query.text);
    const bridged = analyzeWords(query.text)
      .filter(({ terms }) => !index.documentFrequency.has(terms[0]!))
      .filter(({ word }) => (/^[\x00-\x7f]*$/.test(word) ? scripts.latin : scripts.latin || scripts.other))
      .map(({ word }) => [word, loanwordGlosses(index, word).senses.flat().join('|')] as const)
      .filter(([, senses]) => senses !== '');
    if (bridged.length > 0) process.stdout.write(`${data.name} ${query.lang} ${query.gold.length ? 'ans ' : 'NONE'} ${bridged.map(([w, s]) => `${w}→${s}`).join('  ')}\n`);
  }
}
