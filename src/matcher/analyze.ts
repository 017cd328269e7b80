import { rulesFor, type ScriptRules } from './scripts.js';

/** One word of a text and the index terms it yields (a stem, or for ideographic words also its bigrams). */
export interface AnalyzedWord {
  word: string;
  terms: string[];
}

// Spaced scripts split on anything that is not a letter, mark or digit; scripts written without
// spaces go through ICU's dictionary-based word breaking, which is slower, so only they pay for it.
const WORD = /[\p{L}\p{M}\p{Nd}]+/gu;
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
// made at the first unspaced word, not when the module loads: ICU's word-break data costs ~20 ms of CPU, which a
// server would otherwise pay before it listens (issue #18) for a segmenter only intent matching uses
let segmenter: Intl.Segmenter | undefined;

// an acronym's last capital begins the next word (HTTPRequest, XMLHttpRequest), unless a lone s after it makes the
// acronym a plural (URLs, PDFs, ETFs: split there they were `ur` + `ls`, `pd` + `fs`, `et` + `fs`, and never met the
// singular)
const ACRONYM_BEFORE_WORD = /(\p{Lu})(\p{Lu}(?!s(?!\p{Ll}))\p{Ll})/gu;

const ONLY_DIGITS = /^[\p{Nd}]+$/u;
const ENGLISH_LETTERS = /^[a-z]+$/;

// tool texts repeat their words a lot: the terms of a word are computed once (bounded, so a
// long-running server reading many texts does not grow without limit)
const MEMO_LIMIT = 100_000;
const memo = new Map<string, string[]>();

/** Splits identifiers (`getWeather`, `calculate_triangle_area`, `math.factorial`) into words. */
export function splitIdentifiers(text: string): string[] {
  return spacedIdentifiers(text)
    .split(/\s+/)
    .filter((part) => part.length > 0);
}

// the text with identifiers' words spaced apart: its letter runs are those of `splitIdentifiers(text).join(' ')`
function spacedIdentifiers(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/(\p{Ll}|\p{Nd})(\p{Lu})/gu, '$1 $2')
    .replace(ACRONYM_BEFORE_WORD, '$1 $2')
    .replace(/[_.:]+/g, ' ');
}

/**
 * The words of a text with their terms; stop words, single Latin letters and plain numbers yield none.
 * With `limit`, analysis stops once that many distinct words are found.
 */
export function analyzeWords(text: string, limit = Infinity): AnalyzedWord[] {
  const words: AnalyzedWord[] = [];
  const distinct = new Set<string>();
  const spaced = spacedIdentifiers(text);
  // one pattern object read with exec (matchAll copies it per call): nothing in the loop uses it meanwhile
  WORD.lastIndex = 0;
  for (let match = WORD.exec(spaced); match !== null; match = WORD.exec(spaced)) {
    if (distinct.size >= limit) break;
    const token = match[0];
    if (!UNSPACED.test(token)) addWord(token, words, distinct);
    else for (const segment of segmentsOf(token)) addWord(segment, words, distinct);
  }
  return words;
}

function addWord(raw: string, words: AnalyzedWord[], distinct: Set<string>): void {
  const word = raw.toLowerCase();
  let terms = memo.get(word);
  if (terms === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    terms = termsOf(word);
    memo.set(word, terms);
  }
  if (terms.length === 0) return;
  words.push({ word, terms });
  distinct.add(terms[0]!);
}

// ICU's word breaking is the costliest step of analysis, and tool texts repeat their phrases
const segmentMemo = new Map<string, string[]>();

function segmentsOf(token: string): string[] {
  let segments = segmentMemo.get(token);
  if (segments === undefined) {
    if (segmentMemo.size >= MEMO_LIMIT) segmentMemo.clear();
    segments = [];
    for (const segment of (segmenter ??= new Intl.Segmenter('und', { granularity: 'word' })).segment(token)) if (segment.isWordLike) segments.push(segment.segment);
    segmentMemo.set(token, segments);
  }
  return segments;
}

/** The flat list of terms of a text, as the search index stores them. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const word of analyzeWords(text)) terms.push(...word.terms);
  return terms;
}

// 一下 (a moment: 查一下, 跑一下), 一些 (some), 一点 / 一点儿 (a little); not 一次 (下一次 next time, 最后一次 the last one)
const IDEOGRAPHIC_FUNCTION_WORDS: ReadonlySet<string> = new Set(['一下', '一些', '一点', '一点儿']);

function termsOf(word: string): string[] {
  // a bare number in a request is a parameter value, not a description of the tool
  if (ONLY_DIGITS.test(word)) return [];
  const rules = rulesFor(word);
  if (rules.stopWords.has(word)) return [];
  if (!rules.ideographic) {
    if (word.length < 2) return [];
    return [spacedTerm(word, rules)];
  }
  const characters = [...word];
  if (characters.length < 2) return [word];
  // a word made only of function characters (一个, 这个, 什么) is a function word too, and so are the few measure words
  // of "a bit, some" whose second character carries meaning elsewhere (下, 些, 点): 查一下 is 查 (userZ7 F6)
  if (rules.characters && (IDEOGRAPHIC_FUNCTION_WORDS.has(word) || characters.every((character) => rules.stopWords.has(character)))) return [];
  // parts of an ideographic word match where another text segments or inflects it differently:
  // its characters (where they carry meaning) and, in longer words, its character pairs
  const terms = [word];
  if (rules.characters) {
    for (const character of characters) if (!rules.stopWords.has(character)) terms.push(character);
  }
  for (let index = 0; characters.length > 2 && index + 1 < characters.length; index += 1) {
    terms.push(characters[index]! + characters[index + 1]!);
  }
  return terms;
}

// A word of a spaced script's term. An English word of three letters is stemmed too (day and days, age and ages, buy
// and buying were apart), unless it ends in s (bus, gas, dns, aws: the stemmer would cut them to `bu`, `ga`); a stem
// of two letters cut from a longer English word gets its letter back (using, used, uses → `use`, not the word *us* or
// the *US*; added → `add`). Snowball's English rules keep *news* whole, not as *new*. Other scripts: as before, their
// words of four letters or more are stemmed.
function spacedTerm(word: string, rules: ScriptRules): string {
  if (word.length === 2) return word;
  const english = ENGLISH_LETTERS.test(word);
  if (!english) return word.length > 3 ? rules.stem(word) : word;
  if (word === 'news' || (word.length === 3 && word.endsWith('s'))) return word;
  const stem = rules.stem(word);
  if (stem.length > 2 || stem === word) return stem;
  const last = stem[stem.length - 1]!;
  return word.startsWith(stem + last) ? stem + last : `${stem}e`;
}

/**
 * What the first analysis would otherwise make in its turn, a step each: the stop lists (`stopword`, required) and ICU's
 * word breaker with its data. A server runs it before it updates a kept index or warms up, once it listens: at 100,000
 * tools the update's first analysis of a changed tool made both, ~50 ms of CPU in one hold of the event loop (issue #18).
 */
export function* analysisSteps(): Generator<void, void, void> {
  rulesFor('a');
  yield;
  for (const _ of (segmenter ??= new Intl.Segmenter('und', { granularity: 'word' })).segment('准备')) break;
}

/** Whether the word breaker is made: for tests. */
export function wordBreakerMade(): boolean {
  return segmenter !== undefined;
}
