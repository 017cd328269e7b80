import { distance } from 'fastest-levenshtein';
import { toolNameAt, type NearMiss, type ToolSequence } from '../core/index.js';
import { splitIdentifiers } from './analyze.js';

/** At most this many "did you mean" names: enough to fix a typo, never the catalogue. */
export const MAX_NEAR_NAMES = 3;

/** Every alias of an index as written, each with the position of a tool that claims it. */
export interface AliasesByPosition {
  readonly texts: readonly string[];
  readonly positions: readonly number[];
}

/**
 * Tools whose name or alias is spelled like `name`, or shares a word with it, closest first. Read from the names
 * and the aliases alone: only the few tools named are made, for their display (a typo at 100,000 tools made and
 * kept every definition).
 */
export function nearNames(tools: ToolSequence, aliases: AliasesByPosition, name: string): NearMiss[] {
  const wanted = normalise(name);
  const wantedWords: WantedWords = { words: new Set(words(name)), lengths: new Set() };
  for (const word of wantedWords.words) wantedWords.lengths.add(word.length);
  const best = new Float64Array(tools.length);
  for (let position = 0; position < tools.length; position++) best[position] = similarity(wanted, wantedWords, toolNameAt(tools, position)!);
  for (let at = 0; at < aliases.texts.length; at++) {
    const position = aliases.positions[at]!;
    best[position] = Math.max(best[position]!, similarity(wanted, wantedWords, aliases.texts[at]!));
  }
  const scored: Array<{ position: number; name: string; score: number }> = [];
  for (let position = 0; position < tools.length; position++) {
    if (best[position]! > 0) scored.push({ position, name: toolNameAt(tools, position)!, score: round(best[position]!) });
  }
  return scored
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
    .slice(0, MAX_NEAR_NAMES)
    .map(({ position, name: near, score }) => ({ name: near, display: tools.at(position)!.display, score }));
}

// the words of the name asked for, and their lengths
interface WantedWords {
  words: Set<string>;
  lengths: Set<number>;
}

// a typo (small edit distance) or a shared word ("exec" in "shell-exec") makes a name near
function similarity(wanted: string, wantedWords: WantedWords, known: string): number {
  const simple = SIMPLE.test(known);
  const candidate = simple ? known.toLowerCase().replace(SEPARATORS, '-') : normalise(known);
  const longest = Math.max(wanted.length, candidate.length);
  if (longest === 0) return 0;
  const allowed = Math.max(2, Math.floor(longest / 3));
  // no spelling needs fewer edits than the lengths differ by: a name far longer than any tool's (a 1 MiB name, sent
  // by an agent) is not compared letter by letter with every name and alias, on the event loop (review L, L7)
  const spelling = Math.abs(wanted.length - candidate.length) > allowed ? 0 : closeness(distance(wanted, candidate), allowed, longest);
  let count: number;
  let shared = 0;
  if (simple) [count, shared] = simpleWords(known, wantedWords);
  else {
    const knownWords = words(known);
    count = knownWords.length;
    for (const word of knownWords) if (wantedWords.words.has(word)) shared += 1;
  }
  const overlap = shared === 0 ? 0 : (0.5 * shared) / Math.max(count, wantedWords.words.size);
  return Math.max(spelling, overlap);
}

function closeness(edits: number, allowed: number, longest: number): number {
  return edits <= allowed ? 1 - edits / longest : 0;
}

// ASCII and CJK unified ideographs: NFKC leaves each as it is and none is cased but ASCII letters, so a name of these
// alone is normalised and split into words by the plain loops below, exactly as by `normalise` and `words`, which took
// most of an unknown name's ~1.2 s of CPU at 100,000 tools (300,000 names and aliases compared)
const SIMPLE = /^[\x00-\x7f\u3400-\u4dbf\u4e00-\u9fff]*$/;
const SEPARATORS = /[\s_.-]+/g;

/** How many words a simple name has (as `words` gives them), and how many of them are in `wanted`. */
function simpleWords(known: string, wanted: WantedWords): [count: number, shared: number] {
  let count = 0;
  let shared = 0;
  let start = 0;
  for (let at = 0; at <= known.length; at++) {
    let next: number;
    if (at === known.length || isSeparator(known.charCodeAt(at))) next = at + 1;
    else if (at > start && startsWord(known, at)) next = at;
    else continue;
    const length = at - start;
    if (length > 1) {
      count += 1;
      // a word of no wanted length is not made into a string to be looked up
      if (wanted.lengths.has(length) && wanted.words.has(known.slice(start, at).toLowerCase())) shared += 1;
    }
    start = next;
  }
  return [count, shared];
}

// white space, and what `splitIdentifiers` and `words` split on besides: _ . : -
function isSeparator(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 95 || code === 46 || code === 58 || code === 45;
}

// where `splitIdentifiers` spaces an identifier's words apart: aB, 1B, and ABc (before the B)
function startsWord(text: string, at: number): boolean {
  if (!isUpper(text.charCodeAt(at))) return false;
  const before = text.charCodeAt(at - 1);
  return isLower(before) || (before >= 48 && before <= 57) || (isUpper(before) && isLower(text.charCodeAt(at + 1)));
}

const isUpper = (code: number): boolean => code >= 65 && code <= 90;
const isLower = (code: number): boolean => code >= 97 && code <= 122;

function normalise(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/[\s_.-]+/g, '-');
}

function words(name: string): string[] {
  return splitIdentifiers(name)
    .flatMap((part) => part.toLowerCase().split(/[\s-]+/))
    .filter((word) => word.length > 1);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
