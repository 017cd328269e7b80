import { distance } from 'fastest-levenshtein';
import { createRequire } from 'node:module';
import type { Glosses } from './lexicon.js';
import type { SearchIndex } from './search-index.js';
import { transliterator } from './suggestion.js';

// Technical words in other languages are mostly English ones borrowed: репозиторий, コミット, 스크립트,
// configuración, Konfiguration. A request word no tool has is written in ASCII (any-ascii), spelled as it
// sounds (c and k alike, no doubled letters, the vowels Japanese and Korean add between consonants left out), and
// compared with the registry's own English stems spelled the same way: one that begins as the word does and
// differs from it in at most a fifth of its letters is taken as the word's English sense, as a Chinese
// word's dictionary sense is. Nothing is fitted to one language: the rule is the same for every script.

// a stem shorter than this spelled so says too little (log, set, run): too many words begin so
const MIN_STEM = 4;
// the letters a stem and the word must begin with alike
const SAME_START = 4;
// how far the spellings may be apart, edits per letter of the stem
const MAX_DISTANCE = 0.2;
// more stems than this alike is no sense, but a crowd
const MAX_SENSES = 2;
// a stem shorter than this share of the word is another, shorter word the word begins with (spring of springville)
const MIN_COVER = 0.5;

/** A word in ASCII spelled as it sounds: letters only, c/q as k (c before e, i, y as s), ph as f, y as i, z as s, w as v, no doubled letters. */
export function spellingOf(ascii: string): string {
  // one pass over the letters: the index's every stem is spelled so once (a chain of regular expressions cost ~8 µs a stem)
  const letters = ascii.toLowerCase().replace(NOT_A_LETTER, '');
  let spelled = '';
  const add = (sound: string): void => {
    if (!spelled.endsWith(sound)) spelled += sound;
  };
  for (let at = 0; at < letters.length; at += 1) {
    const letter = letters[at]!;
    const next = letters[at + 1];
    if (letter === 'p' && next === 'h') [at, spelled] = [at + 1, spelled.endsWith('f') ? spelled : `${spelled}f`];
    else if (letter === 'c') {
      if (next === 'k' || next === 'h') at += 1;
      add(next === 'h' ? 'c' : next === 'e' || next === 'i' || next === 'y' ? 's' : 'k');
    } else if (letter === 'x') {
      add('k');
      add('s');
    } else add(SOUND[letter] ?? letter);
  }
  return spelled;
}

const NOT_A_LETTER = /[^a-z]+/g;
const SOUND: Record<string, string> = { q: 'k', y: 'i', z: 's', w: 'v' };

// Japanese writes a borrowed word's consonant clusters and final consonants with vowels after them (スクリプト
// sukuriputo: script), Korean with eu (스크립트 seukeulibteu); neither has l and r apart. Those vowels are left out
// of both scripts' words, and their l compared as r.
function unvoweled(romanised: string, script: 'kana' | 'hangul'): string {
  if (script === 'hangul') return romanised.replace(/eo/g, 'o').replace(/ae/g, 'a').replace(/eu(?![aeiou])/g, '').replace(/l/g, 'r');
  return romanised
    .replace(/([bcdfghjkmpstvz])u(?![aeiou])/g, '$1')
    .replace(/([dt])o(?![aeiou])/g, '$1')
    .replace(/([bcdfghjkmpsvz])i(?=$)/g, '$1');
}

/** One of the index's English stems as the words of other languages are compared with it. */
interface SpelledStem {
  stem: string;
  spelling: string;
}

// per index version, its English stems (spelled as above) by their first letters: made at the first request that
// needs it (~5-20 ms of CPU for BFCL's 4,300 terms), as the other forms of a word are (relatives.ts)
const byStart = new WeakMap<SearchIndex, Map<string, SpelledStem[]>>();
const LATIN_STEM = /^[a-z]+$/;

function stemsByStart(index: SearchIndex): Map<string, SpelledStem[]> {
  let stems = byStart.get(index);
  if (stems !== undefined) return stems;
  stems = new Map();
  const add = (key: string, entry: SpelledStem): void => {
    const known = stems!.get(key);
    if (known === undefined) stems!.set(key, [entry]);
    else known.push(entry);
  };
  for (const term of index.engine.dictionary.terms) {
    if (term.length < MIN_STEM || !LATIN_STEM.test(term) || !index.documentFrequency.has(term)) continue;
    const spelling = spellingOf(term);
    if (spelling.length < MIN_STEM) continue;
    add(spelling.slice(0, SAME_START), { stem: term, spelling });
    // kana and Hangul words are compared with l as r: the stems so too, under keys of their own
    const rolled = spelling.replace(/l/g, 'r');
    add(`~${rolled.slice(0, SAME_START)}`, { stem: term, spelling: rolled });
  }
  byStart.set(index, stems);
  return stems;
}

const NONE: Glosses = { senses: [], common: 0 };
const MARKS = /\p{M}+/gu;
const HANGUL = /\p{Script=Hangul}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN = /\p{Script=Han}/u;

/** The word in ASCII as it sounds: Latin letters without their marks, other scripts by any-ascii (Hangul syllable by syllable). */
export function romanise(word: string): string {
  const plain = word.normalize('NFD').replace(MARKS, '').replace(/ß/g, 'ss');
  if (/^[\x00-\x7f]*$/.test(plain)) return plain;
  const transliterate = transliterator();
  if (!HANGUL.test(word)) return transliterate(word);
  // a syllable's final ㅅ is said t (커밋, commit), which any-ascii writes s
  return [...word].map((syllable) => transliterate(syllable).toLowerCase().replace(/([aeiou])s$/, '$1t')).join('');
}

/**
 * The registry's English stems a request word no tool has is spelled like, as a sense (`Glosses`) of the word:
 * コミット → commit, репозиторий → repositori, configuración → configur. None for Chinese characters (CC-CEDICT's),
 * or where no stem, or too many, are close enough.
 */
export function loanwordGlosses(index: SearchIndex, word: string): Glosses {
  if (HAN.test(word) || isForeignFunctionWord(word)) return NONE;
  let memo = memos.get(index);
  if (memo === undefined) memos.set(index, (memo = new Map()));
  let glosses = memo.get(word);
  if (glosses === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    glosses = lookUp(index, word);
    memo.set(word, glosses);
  }
  return glosses;
}

// requests repeat their words: each word's senses are worked out once per index version (bounded)
const memos = new WeakMap<SearchIndex, Map<string, Glosses>>();
const MEMO_LIMIT = 20_000;

// Cyrillic writes English's long i (/aɪ/: file, site, driver, byte, online) as ай, which any-ascii spells ai, the spelling
// of fail, mail, main: файл was taken for fail (review userZ9, U9-5). Before a consonant, ай is read as English writes the
// sound, i and the consonants and a silent e (файл → file, сайт → site, драйвер → driver); that reading is asked first,
// and the letters as any-ascii writes them only where it finds no stem.
const CYRILLIC_LONG_I = /ай([бвгджзклмнпрстфхцчшщ]+)/giu;

function lookUp(index: SearchIndex, word: string): Glosses {
  if (CYRILLIC_LONG_I.test(word)) {
    CYRILLIC_LONG_I.lastIndex = 0;
    const asEnglishWrites = lookUpSpelled(index, word.replace(CYRILLIC_LONG_I, (_, consonants: string) => `и${consonants}е`));
    if (asEnglishWrites.senses.length > 0) return asEnglishWrites;
  }
  return lookUpSpelled(index, word);
}

function lookUpSpelled(index: SearchIndex, word: string): Glosses {
  const script = HANGUL.test(word) ? 'hangul' : KANA.test(word) ? 'kana' : undefined;
  let spelling = spellingOf(script === undefined ? romanise(word) : unvoweled(romanise(word).toLowerCase(), script));
  if (script !== undefined) spelling = spelling.replace(/l/g, 'r');
  if (spelling.length < MIN_STEM) return NONE;
  const key = `${script === undefined ? '' : '~'}${spelling.slice(0, SAME_START)}`;
  let best: string[] = [];
  let bestDistance = Infinity;
  for (const candidate of stemsByStart(index).get(key) ?? []) {
    if (candidate.spelling.length > spelling.length + 1 || candidate.spelling.length < spelling.length * MIN_COVER) continue;
    // the stem against as much of the word as it is long: an inflected word's ending is not a difference
    const apart = distance(candidate.spelling, spelling.slice(0, candidate.spelling.length)) / candidate.spelling.length;
    if (apart > MAX_DISTANCE || apart > bestDistance) continue;
    if (apart < bestDistance) [best, bestDistance] = [[], apart];
    best.push(candidate.stem);
  }
  // of stems equally close, the longest says most (configur, not config)
  if (best.length > 1) {
    const longest = Math.max(...best.map((stem) => stem.length));
    best = best.filter((stem) => stem.length === longest);
  }
  return best.length === 0 || best.length > MAX_SENSES ? NONE : { senses: best.map((stem) => [stem]), common: 1 };
}

// The function words of the languages written in Latin letters that requests come in most, beside English's:
// a request in Latin letters is taken as in another language than English when it has more of theirs than of English's.
const require = createRequire(import.meta.url);
let foreignStopWords: Set<string> | undefined;
let englishStopWords: Set<string> | undefined;
const LATIN_WORD = /\p{Script=Latin}+/gu;
const NON_LATIN_LETTER = /(?![\p{Script=Han}])[^\p{Script=Latin}\P{L}]/u;

/** Whether a request's words that no tool has may be borrowed words: its Latin-letter words only if it is not in English. */
export function bridgedScripts(text: string): { latin: boolean; other: boolean } {
  const { foreign: foreignWords, english: englishWords } = stopWords();
  let foreign = 0;
  let english = 0;
  for (const [word] of text.toLowerCase().matchAll(LATIN_WORD)) {
    if (englishWords.has(word)) english += 1;
    else if (foreignWords.has(word)) foreign += 1;
  }
  return { latin: foreign > english, other: NON_LATIN_LETTER.test(text) };
}

/** Whether a word is a function word of one of those languages (and not of English). */
export function isForeignFunctionWord(word: string): boolean {
  return stopWords().foreign.has(word);
}

function stopWords(): { foreign: Set<string>; english: Set<string> } {
  if (foreignStopWords === undefined || englishStopWords === undefined) {
    const lists = require('stopword') as Record<string, string[]>;
    const english = new Set(lists['eng']);
    foreignStopWords = new Set(['spa', 'deu', 'fra', 'por', 'ita', 'nld'].flatMap((language) => lists[language] ?? []).filter((word) => !english.has(word)));
    englishStopWords = english;
  }
  return { foreign: foreignStopWords, english: englishStopWords };
}
